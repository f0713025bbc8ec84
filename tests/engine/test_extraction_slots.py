"""Slots and supersession through the real store: a new value of a single-valued slot (also a
negated one) supersedes the old, history stays visible with include_superseded; a shorter
restatement never replaces a richer fact; provenance lands in the metadata and in the
`memory.extracted` log line."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, MemoryConfig, VectorStoreConfig
from memtap.engine.engine import Engine
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite import outbox
from memtap.engine.types import ListQuery, Memory, Turn

OWNER = "a" * 24


def subjects(text: str) -> list[str]:
    return [f.subject for f in extract_facts(text, "user")]


def test_single_valued_slots_share_a_subject_across_polarity_and_wording() -> None:
    home = {
        subjects("I live in Oslo.")[0],
        subjects("I don't live in Oslo any more.")[0],
        subjects("I moved to Bergen.")[0],
        subjects("I'm based in Austin.")[0],
    }
    assert home == {"slot:location.home"}
    assert (
        subjects("I work at Google.")
        == subjects("I left Acme.")
        == ["slot:work.employer"]
    )
    assert (
        subjects("I'm vegetarian.")
        == subjects("I'm not vegetarian anymore.")
        == ["slot:constraint.diet"]
    )
    assert subjects("Please answer in Spanish.") == subjects(
        "Don't answer in French anymore."
    )


def test_multi_valued_facts_do_not_replace_each_other() -> None:
    assert subjects("I'm allergic to peanuts.") != subjects(
        "I'm allergic to shellfish."
    )
    assert subjects("I have two kids.") != subjects("I have a cat named Miso.")
    assert subjects("I want to run a marathon.") != subjects(
        "I want to learn Japanese."
    )


def test_a_shorter_restatement_does_not_supersede_the_richer_fact() -> None:
    rich = extract_facts(
        "I prefer tabs over spaces for indentation in Go and Makefiles.", "user"
    )[0]
    assert extract_facts("yes, tabs over spaces", "user") == []
    short = extract_facts("Yes, I prefer tabs over spaces.", "user")[0]
    assert rich.key != short.key and rich.subject != short.subject
    assert rich.subject == "choice:indentation@indentation_in_go_and_makefiles"
    assert short.subject == "choice:indentation"
    # the same scope stated again does replace it: that is an update, not a restatement
    update = extract_facts(
        "I prefer spaces over tabs for indentation in Go and Makefiles.", "user"
    )[0]
    assert update.subject == rich.subject


def holder(tmp_path: Path) -> ConfigHolder:
    return ConfigHolder(
        Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(),
            vector_store=VectorStoreConfig(kind="none"),
        )
    )


async def replay(engine: Engine, texts: list[str]) -> None:
    for i, text in enumerate(texts):
        await engine.enqueue_turn(
            Turn(f"req-{i}", OWNER, None, "openai-chat", text, "Noted.")
        )
        deadline = time.monotonic() + 10
        while await engine.local.db.read(
            outbox.depth
        ):  # one turn at a time: order matters here
            assert time.monotonic() < deadline, "outbox did not drain"
            await asyncio.sleep(0.01)


async def memories(engine: Engine, include_superseded: bool = False) -> list[Memory]:
    page = await engine.list_memories(
        ListQuery(owner=OWNER, include_superseded=include_superseded, limit=100)
    )
    return list(page.items)


@pytest.mark.parametrize(
    ("texts", "live", "history"),
    [
        (
            ["I live in Oslo.", "I don't live in Oslo any more."],
            ["No longer lives in Oslo"],
            ["Lives in Oslo"],
        ),
        (
            ["I live in Oslo.", "I moved to Bergen."],
            ["Moved to Bergen"],
            ["Lives in Oslo"],
        ),
        (
            ["I work at Google.", "I work at Stripe now."],
            ["Works at Stripe"],
            ["Works at Google"],
        ),
        (
            ["Ich wohne in Berlin.", "Ich wohne nicht mehr in Berlin."],
            ["Wohnt nicht mehr in Berlin"],
            ["Wohnt in Berlin"],
        ),
        (
            [
                "I prefer tabs over spaces for indentation in Go and Makefiles.",
                "Yes, I prefer tabs over spaces.",
            ],
            [
                "Prefers tabs over spaces",
                "Prefers tabs over spaces for indentation in Go and Makefiles",
            ],
            [],
        ),
    ],
)
async def test_slot_supersession_and_history_in_the_store(
    tmp_path: Path, texts: list[str], live: list[str], history: list[str]
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics())
    try:
        await replay(engine, texts)
        assert sorted(m.content for m in await memories(engine)) == sorted(live)
        everything = await memories(engine, include_superseded=True)
        old = [m for m in everything if m.superseded_by is not None]
        assert sorted(m.content for m in old) == sorted(history)
        assert all(m.valid_to is not None for m in old)
    finally:
        await engine.close()


# A newer value replaces the older one in every language the rules read, however the
# sentence is ordered (German puts the subject after the verb when a time opens it), and a
# value given up keeps what the user says replaced it ("…, I eat fish now").
NEWER_VALUES = [
    (
        ["I prefer Vim."],
        "These days I prefer Helix over Vim.",
        ["Prefers Helix over Vim"],
        "Prefers Vim",
    ),
    # A choice "for everything" is the domain's choice, not a scope's: a newer one ends it.
    (
        ["I use Vim for everything."],
        "These days I prefer Helix over Vim.",
        ["Prefers Helix over Vim"],
        "Uses Vim for everything",
    ),
    (
        ["Ich benutze Vim für alles."],
        "Inzwischen bevorzuge ich Helix statt Vim.",
        ["Bevorzugt Helix statt Vim"],
        "Verwendet Vim für alles",
    ),
    (
        ["Ich bevorzuge Vim."],
        "Inzwischen bevorzuge ich Helix statt Vim.",
        ["Bevorzugt Helix statt Vim"],
        "Bevorzugt Vim",
    ),
    (
        ["Prefiero Vim."],
        "Ahora prefiero Helix a Vim.",
        ["Prefiere Helix a Vim"],
        "Prefiere Vim",
    ),
    (
        ["Prefiro Vim."],
        "Agora prefiro Helix ao Vim.",
        ["Prefere Helix ao Vim"],
        "Prefere Vim",
    ),
    (
        ["Je préfère Vim."],
        "Maintenant je préfère Helix à Vim.",
        ["Préfère Helix à Vim"],
        "Préfère Vim",
    ),
    (
        ["Ich wohne in Berlin."],
        "Seit März wohne ich in Hamburg.",
        ["Wohnt in Hamburg"],
        "Wohnt in Berlin",
    ),
    (
        ["I'm vegan."],
        "I'm not vegan anymore, I eat fish now.",
        ["Is no longer vegan", 'Said: "I eat fish now"'],
        "Is vegan",
    ),
    (
        ["Soy vegana."],
        "Ya no soy vegana, ahora como pescado.",
        ["Ya no es vegana", 'Said: "Ahora como pescado"'],
        "Es vegana",
    ),
    (
        ["Sou vegana."],
        "Não sou mais vegana, agora como peixe.",
        ["Não é mais vegana", 'Said: "Agora como peixe"'],
        "É vegana",
    ),
    (
        ["Je suis végane."],
        "Je ne suis plus végane, je mange du poisson maintenant.",
        ["N'est plus végane", 'Said: "Je mange du poisson maintenant"'],
        "Est végane",
    ),
    (
        ["Ich bin vegan."],
        "Ich bin nicht mehr vegan, ich esse jetzt Fisch.",
        ["Ist nicht mehr vegan", 'Said: "Ich esse jetzt Fisch"'],
        "Ist vegan",
    ),
]


@pytest.mark.parametrize(("before", "said", "live", "retired"), NEWER_VALUES)
async def test_a_newer_value_retires_the_older_in_every_language(
    tmp_path: Path, before: list[str], said: str, live: list[str], retired: str
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics())
    try:
        await replay(engine, [*before, said])
        assert sorted(m.content for m in await memories(engine)) == sorted(live)
        everything = await memories(engine, include_superseded=True)
        assert [m.content for m in everything if m.superseded_by] == [retired]
    finally:
        await engine.close()


@pytest.mark.parametrize(
    "text",
    [
        "I'm not vegan anymore, now tell me a recipe.",
        "I'm not vegan anymore, I need help now.",
        "I now eat fish.",  # no value given up before it: the net's rules as usual
    ],
)
def test_only_a_new_value_follows_a_value_given_up(text: str) -> None:
    assert not [f for f in extract_facts(text) if f.content.startswith("Said:")]


async def test_provenance_in_metadata_and_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = await open_engine(holder(tmp_path), Metrics())
    try:
        # Captured until the line came: the worker logs after its commit (and after the
        # turn's episodes), so the rows can be read before it, and a line logged after the
        # capture level was restored would never be seen.
        with caplog.at_level(logging.INFO, logger="memtap.extraction"):
            await replay(
                engine,
                [
                    "Thanks! I live in Dublin and I'm allergic to peanuts, cashews and eggs."
                ],
            )
            deadline = time.monotonic() + 5
            while not (
                lines := [
                    r for r in caplog.records if r.getMessage() == "memory.extracted"
                ]
            ):
                assert time.monotonic() < deadline, "no memory.extracted line"
                await asyncio.sleep(0.01)
        by_content = {m.content: m for m in await memories(engine)}
        home = by_content["Lives in Dublin"].metadata
        assert home["family"] == "location" and home["slot"] == "location.home"
        assert home["polarity"] == "positive" and home["request_id"] == "req-0"
        assert home["clause"] == "I live in Dublin"
        assert home["lang"] == "en" and home["subject"] == "slot:location.home"
        allergy = by_content["Is allergic to peanuts, cashews and eggs"].metadata
        assert allergy["family"] == "constraint" and allergy["slot"] is None
        assert len(lines) == 1
        fields = lines[0].fields  # type: ignore[attr-defined]
        assert sorted(
            zip(fields["families"], fields["slots"], strict=True), key=str
        ) == sorted([("location", "location.home"), ("constraint", None)], key=str)
        assert len(fields["memory_ids"]) == 2
    finally:
        await engine.close()
