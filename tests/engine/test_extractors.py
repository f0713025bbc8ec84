"""The `Extractor` port's parts that need no server: the limits at their edges (an injected
clock), the strict reading of a model's answer, and the rules through the port giving
exactly the facts `extract_facts` gives (on a sample of tests/datasets/extraction_set.json)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from memtap.config.schema import Config, ExtractionConfig, ModelExtractionConfig
from memtap.config.validate import validate
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.extractors.answer import BadAnswer, read_answer
from memtap.engine.extractors.facts import turn_facts
from memtap.engine.extractors.limits import DailyBudget, Limits, OwnerRates, RateLimit
from memtap.engine.extractors.prompt import build_prompt
from memtap.engine.extractors.rules import RulesExtractor
from memtap.engine.ports import OutboxRow, TurnBatch
from memtap.engine.types import Memory, Turn
from memtap.engine.worker.outbox_worker import owner_batches, plan
from tests.support import extraction_answers as answers
from tests.support.standin import Standin

DATASET = Path(__file__).resolve().parents[1] / "datasets" / "extraction_set.json"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- limits ----------------------------------------------------------------------------------


def test_a_rate_allows_its_burst_then_one_call_per_interval() -> None:
    clock = Clock()
    rate = RateLimit(clock)
    for _ in range(6):
        assert rate.available(6)
        rate.take(6)
    assert not rate.available(6)  # the 7th within the minute
    clock.now += 9.999  # one call back every 10 s at 6 a minute
    assert not rate.available(6)
    clock.now += 0.002
    assert rate.available(6)
    rate.take(6)
    assert not rate.available(6)
    clock.now += 3600  # refilled, never beyond the burst
    for _ in range(6):
        assert rate.available(6)
        rate.take(6)
    assert not rate.available(6)


def test_owner_rates_are_per_owner() -> None:
    clock = Clock()
    rates = OwnerRates(clock)
    rates.limit_of("a").take(1)
    assert not rates.limit_of("a").available(1)
    assert rates.limit_of("b").available(1)


def test_the_budget_admits_up_to_its_limit_exactly_and_starts_again_each_day() -> None:
    day = ["2026-12-07"]
    budget = DailyBudget(lambda: day[0])
    assert budget.allows(1000, 1000)
    assert not budget.allows(1001, 1000)
    budget.charge(900)
    assert budget.allows(100, 1000)  # 900 + 100 = the limit: allowed
    assert not budget.allows(101, 1000)
    budget.charge(100)
    assert not budget.allows(0, 999)
    assert budget.spent == 1000
    day[0] = "2026-12-08"
    assert budget.spent == 0 and budget.allows(1000, 1000)


def test_limits_take_nothing_from_a_refused_call() -> None:
    clock = Clock()
    limits = Limits(clock, lambda: "2026-12-07")
    knobs = {"per_minute": 2, "owner_per_minute": 1, "daily_tokens": 100}
    assert limits.admit("a", 10, **knobs) is None
    assert limits.admit("a", 10, **knobs) == "rate_owner"
    assert (
        limits.admit("b", 10, **knobs) is None
    )  # the refused call took no global call
    assert limits.admit("c", 10, **knobs) == "rate_global"
    assert limits.admit("c", 101, **knobs) == "budget"  # checked first
    clock.now += 30
    assert limits.admit("c", 10, **knobs) is None


# -- the answer ------------------------------------------------------------------------------


def memory(memory_id: str, content: str) -> Memory:
    return Memory(memory_id, "owner-a", None, "factual", None, content, {}, "t", "t")


def prompt_for(turns: int = 1) -> Any:
    turn = Turn("req", "owner-a", None, "openai-chat", "I moved to Bergen.", "ok")
    return build_prompt(
        [turn] * turns,
        [memory("id-oslo", "Lives in Oslo"), memory("id-tea", "Prefers tea")],
        model="m",
        extract_from=("user",),
        max_turn_chars=4000,
        max_output_tokens=512,
        temperature=0.0,
    )


def completion(content: str, usage: dict[str, int] | None = None) -> bytes:
    body: dict[str, Any] = {
        "choices": [{"message": {"role": "assistant", "content": content}}]
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode()


def fact(**changes: Any) -> dict[str, Any]:
    item = {
        "turn": 0,
        "type": "factual",
        "family": "location",
        "key": "home_city",
        "content": "Lives in Bergen",
        "polarity": "positive",
        "lang": "en",
        "replaces": ["m1"],
    }
    item.update(changes)
    return item


def test_a_good_answer_maps_aliases_back_to_ids() -> None:
    prompt = prompt_for()
    assert prompt.aliases == {"m1": "id-oslo", "m2": "id-tea"}
    answer = read_answer(
        completion(
            json.dumps({"facts": [fact()]}),
            {"prompt_tokens": 7, "completion_tokens": 3},
        ),
        prompt,
    )
    [only] = answer.facts
    assert only.replaces == ("id-oslo",) and only.content == "Lives in Bergen"
    assert (answer.usage.tokens_in, answer.usage.tokens_out) == (7, 3)
    [[stored]] = turn_facts(list(answer.facts), 1)
    assert stored.subject == "slot:location.home" and stored.slot == "location.home"
    assert stored.replaces == ("id-oslo",)
    fenced = read_answer(
        completion("```json\n" + json.dumps({"facts": []}) + "\n```"), prompt
    )
    assert fenced.facts == () and fenced.usage.tokens_in is None


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"facts": [', "malformed_json"),
        ("Sure! Here are the facts.", "malformed_json"),
        ('{"memories": []}', "wrong_schema"),
        ('{"facts": [], "note": "x"}', "wrong_schema"),
        ('{"facts": {"a": 1}}', "wrong_schema"),
        (json.dumps({"facts": [fact(turn=1)]}), "wrong_schema"),
        (json.dumps({"facts": [fact(turn=True)]}), "wrong_schema"),
        (json.dumps({"facts": [fact(family="gossip")]}), "wrong_schema"),
        (json.dumps({"facts": [fact(type="fact")]}), "wrong_schema"),
        (json.dumps({"facts": [fact(polarity="maybe")]}), "wrong_schema"),
        (json.dumps({"facts": [fact(content="  ")]}), "wrong_schema"),
        (json.dumps({"facts": [fact(content="x" * 501)]}), "wrong_schema"),
        (json.dumps({"facts": [{**fact(), "extra": 1}]}), "wrong_schema"),
        (json.dumps({"facts": [fact(replaces="m1")]}), "wrong_schema"),
        (json.dumps({"facts": [fact()] * 33}), "wrong_schema"),
        (json.dumps({"facts": [fact(replaces=["m3"])]}), "foreign_id"),
        (json.dumps({"facts": [fact(replaces=["id-oslo"])]}), "foreign_id"),
    ],
)
def test_a_bad_answer_is_refused_with_its_reason(content: str, reason: str) -> None:
    with pytest.raises(BadAnswer) as caught:
        read_answer(completion(content), prompt_for())
    assert caught.value.reason == reason


@pytest.mark.parametrize(
    "body",
    [
        b"<html>oops</html>",
        b'{"choices": []}',
        b'{"choices": [{"message": {"content": null}}]}',
    ],
)
def test_a_response_that_is_no_chat_completion_is_refused(body: bytes) -> None:
    with pytest.raises(BadAnswer):
        read_answer(body, prompt_for())


# -- the rules through the port --------------------------------------------------------------


def sample() -> list[str]:
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    texts = [item["text"] for item in data["facts"][::4]]
    texts += [item["text"] for item in data["non_facts"][::6]]
    texts += [m for seq in data["sequences"][::3] for m in seq["messages"]]
    return texts


async def test_the_rules_through_the_port_give_exactly_the_facts_of_extract_facts() -> (
    None
):
    texts = sample()
    assert len(texts) > 150
    rows = [
        OutboxRow(
            seq,
            Turn(
                f"req-{seq}",
                f"owner-{seq % 3}",
                None,
                "openai-chat",
                text,
                "ok",
                created_at="2026-12-07T10:00:00.000Z",
            ),
            0,
        )
        for seq, text in enumerate(texts, start=1)
    ]
    extracted = await RulesExtractor().extract(owner_batches(rows, ("user",)))
    assert sorted(item.row.seq for item in extracted) == [row.seq for row in rows]
    by_seq = {item.row.seq: item for item in extracted}
    for row in rows:
        assert list(by_seq[row.seq].facts) == extract_facts(row.turn.user_text, "user")
        assert by_seq[row.seq].extractor == "rules"
    planned = plan(extracted)
    assert [item.row.seq for item in planned] == [row.seq for row in rows]
    metas = [meta for item in planned for _, meta in item.facts]
    assert metas and all(m["extractor"] == "rules" for m in metas)
    assert sum(len(item.facts) for item in planned) > 100


def test_owner_batches_keep_each_owners_turns_in_order() -> None:
    rows = [
        OutboxRow(seq, Turn(f"r{seq}", owner, None, "openai-chat", "x", "y"), 0)
        for seq, owner in enumerate(["a", "b", "a", "c", "b"], start=1)
    ]
    batches = owner_batches(rows, ("user",))
    assert [(b.owner, [r.seq for r in b.rows]) for b in batches] == [
        ("a", [1, 3]),
        ("b", [2, 5]),
        ("c", [4]),
    ]
    assert all(isinstance(b, TurnBatch) for b in batches)


# -- config ------------------------------------------------------------------------------


def test_model_extraction_needs_a_url_and_a_model() -> None:
    issues = validate(Config(extraction=ExtractionConfig(kind="model")))
    paths = {issue.path for issue in issues}
    assert {"extraction.model.url", "extraction.model.model"} <= paths
    good = ExtractionConfig(
        kind="model",
        model=ModelExtractionConfig(
            url="http://127.0.0.1:11434/v1", model="qwen2.5:3b"
        ),
    )
    assert not [
        i for i in validate(Config(extraction=good)) if i.path.startswith("extraction")
    ]
    bad = ExtractionConfig(model=ModelExtractionConfig(url="ftp://x", concurrency=0))
    assert {"extraction.model.url", "extraction.model.concurrency"} <= {
        i.path for i in validate(Config(extraction=bad))
    }


# -- measuring a model (scripts/eval_extraction.py) --------------------------------------


async def test_eval_extraction_measures_a_model_like_the_rules(
    standin: Standin, tmp_path: Path
) -> None:
    spec = importlib.util.spec_from_file_location(
        "eval_extraction",
        Path(__file__).resolve().parents[2] / "scripts/eval_extraction.py",
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # its dataclasses look their module up
    spec.loader.exec_module(script)
    data = {
        "facts": [
            {
                "id": "f1",
                "lang": "en",
                "text": "I live in Oslo.",
                "expect": [
                    {"family": "location", "polarity": "positive", "has": ["Oslo"]}
                ],
            },
            {
                "id": "f2",
                "lang": "en",
                "text": "I'm vegetarian.",
                "expect": [
                    {
                        "family": "constraint",
                        "polarity": "positive",
                        "has": ["vegetarian"],
                    }
                ],
            },
        ],
        "non_facts": [
            {"id": "n1", "lang": "en", "kind": "question", "text": "Is Oslo big?"}
        ],
        "sequences": [
            {
                "id": "s1",
                "lang": "en",
                "slot": "location.home",
                "messages": ["I live in Oslo.", "I moved to Bergen."],
                "final": "Bergen",
                "stale": ["Lives in Oslo"],
            },
        ],
    }
    standin.extraction_answers.extend(
        [
            answers.good([answers.fact("Lives in Oslo")]),
            answers.malformed_json(),
            answers.good([]),
            answers.good([answers.fact("Lives in Oslo")]),
            answers.good(
                lambda prompt: [
                    answers.fact(
                        "Lives in Bergen",
                        replaces=[answers.alias_of(prompt, "Lives in Oslo")],
                    )
                ]
            ),
        ]
    )
    args = script.argparse.Namespace(
        extractor="model",
        model_url=f"{standin.url}/v1",
        model_name="standin-extractor",
        model_key_env=None,
        model_timeout=5.0,
        concurrency=1,
    )
    result, _ = await script.evaluate(data, args)
    assert result["recall"]["all"] == {"rate": 0.5, "n": 2}
    assert result["clean"]["all"] == {"rate": 1.0, "n": 1}
    assert result["updates"]["all"] == {"rate": 1.0, "n": 1}
    assert result["model"]["calls"] == 5
    assert result["model"]["failures"] == {"malformed_json": 1}
    assert len(standin.extraction_requests) == 5
    args.extractor = "rules"
    rules, _ = await script.evaluate(data, args)
    assert rules["recall"]["all"]["n"] == 2 and "model" not in rules
