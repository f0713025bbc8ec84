"""Every recorded case of tests/fixtures/llm-traffic through its codec: the response fed whole,
split at each `split_at` offset, split at single byte boundaries, and one byte at a time must
give the Completion expect.json describes; read_request must give expect.request."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memtap.proxy.codecs.base import Codec, Completion
from memtap.proxy.codecs.registry import detect

FIXTURES = Path(__file__).parent.parent / "fixtures" / "llm-traffic"
EVERY_SPLIT_LIMIT = 4096
"""Bodies up to this size are cut at every single byte offset; bigger ones at a sample."""
SAMPLED_SPLITS = 96


@dataclass(frozen=True)
class Case:
    name: str
    expect: dict[str, Any]
    request: bytes
    response: bytes
    method: str
    path: str
    query: str

    @property
    def codec(self) -> Codec:
        codec = detect("auto", self.method, self.path)
        assert codec is not None, self.name
        return codec


def load_cases() -> list[Case]:
    cases = []
    for expect_file in sorted(FIXTURES.glob("*/*.expect.json")):
        stem = str(expect_file)[: -len(".expect.json")]
        expect = json.loads(expect_file.read_bytes())
        (response_file,) = Path(stem).parent.glob(Path(stem).name + ".response.*")
        method, _, target = expect["endpoint"].partition(" ")
        path, _, query = target.partition("?")
        cases.append(
            Case(
                name=f"{expect_file.parent.name}/{Path(stem).name}",
                expect=expect,
                request=Path(stem + ".request.json").read_bytes(),
                response=response_file.read_bytes(),
                method=method,
                path=path,
                query=query,
            )
        )
    return cases


CASES = load_cases()
STREAM_CASES = [c for c in CASES if c.expect["stream"] and c.expect["status"] == 200]


def follow(case: Case, chunks: list[bytes]) -> Completion:
    follower = case.codec.follower(case.expect["content_type"], case.path, case.query)
    for chunk in chunks:
        follower.feed(chunk)
    completion = follower.finish()
    assert not follower.failed, (case.name, completion.error)
    return completion


def check(case: Case, completion: Completion, how: str) -> None:
    expect = case.expect
    where = f"{case.name} ({how})"
    assert completion.assistant_text == expect["assistant_text"], where
    assert completion.finish == expect["finish"], where
    assert completion.clean_end is expect["clean_end"], where
    assert list(completion.tool_calls) == expect.get("tool_calls", []), where
    if "usage" in expect:
        assert completion.usage == expect["usage"], where
    if "error" in expect:
        assert (
            completion.error is not None and expect["error"]["type"] in completion.error
        ), where
    else:
        assert completion.error is None, where


def split(body: bytes, offsets: list[int]) -> list[bytes]:
    cuts = [0, *sorted(offsets), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(cuts)]


def test_fixture_set_is_complete() -> None:
    by_dir: dict[str, int] = {}
    for case in CASES:
        by_dir[case.name.split("/")[0]] = by_dir.get(case.name.split("/")[0], 0) + 1
    assert by_dir == {
        "openai-chat": 11,
        "openai-responses": 9,
        "anthropic-messages": 10,
        "gemini": 9,
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_whole_body(case: Case) -> None:
    check(case, follow(case, [case.response]), "whole")


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.expect.get("split_at")], ids=lambda c: c.name
)
def test_split_at_recorded_offsets(case: Case) -> None:
    offsets = case.expect["split_at"]
    check(case, follow(case, split(case.response, offsets)), f"split_at {offsets}")
    for offset in offsets:
        check(case, follow(case, split(case.response, [offset])), f"split_at {offset}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_one_byte_at_a_time(case: Case) -> None:
    body = case.response
    check(
        case, follow(case, [body[i : i + 1] for i in range(len(body))]), "byte by byte"
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.slow
def test_every_single_split_point(case: Case) -> None:
    body = case.response
    if len(body) <= EVERY_SPLIT_LIMIT:
        offsets = list(range(1, len(body)))
    else:
        rng = random.Random(case.name)
        special = [
            i
            for i in range(1, len(body))
            if body[i - 1 : i] in (b"\r", b"\n") or body[i] >= 0x80
        ]
        offsets = sorted(
            set(
                rng.sample(range(1, len(body)), SAMPLED_SPLITS)
                + rng.sample(special, min(len(special), SAMPLED_SPLITS))
            )
        )
    for offset in offsets:
        check(case, follow(case, [body[:offset], body[offset:]]), f"split {offset}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_random_chunkings(case: Case) -> None:
    rng = random.Random(f"chunks-{case.name}")
    body = case.response
    for _ in range(20):
        offsets = rng.sample(
            range(1, len(body)), min(len(body) - 1, rng.randint(2, 40))
        )
        check(case, follow(case, split(body, offsets)), "random chunks")


@pytest.mark.parametrize("case", STREAM_CASES, ids=lambda c: c.name)
def test_cut_stream_is_not_a_clean_end(case: Case) -> None:
    """A stream whose bytes stop early (connection lost) never reads as complete, and the
    follower reports what arrived without failing."""
    body = case.response
    terminator = {
        "openai-chat": b"data: [DONE]",
        "openai-responses": b"event: response.",
        "anthropic-messages": b"event: message_stop",
        "gemini": b"",
    }[case.name.split("/")[0]]
    if case.expect["clean_end"] is False:
        cut_points = [len(body) // 2]
    elif terminator:
        last = body.rfind(terminator)
        assert last > 0
        cut_points = [last, last + len(terminator) // 2, len(body) // 3]
    else:  # Gemini: drop the final blank line (CR alone already ends it) or the closing bracket
        cut_points = [len(body) - 3, len(body) - 2, len(body) // 2]
    for cut in cut_points:
        follower = case.codec.follower(
            case.expect["content_type"], case.path, case.query
        )
        follower.feed(body[:cut])
        completion = follower.finish()
        assert not follower.failed, case.name
        assert completion.clean_end is False, (case.name, cut)
        assert case.expect["assistant_text"].startswith(completion.assistant_text), (
            case.name,
            cut,
        )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_read_request(case: Case) -> None:
    want = case.expect["request"]
    view = case.codec.read_request(json.loads(case.request), case.path, case.query)
    assert view.model == want["model"]
    assert view.stream is want["stream"]
    assert view.last_user_text == want["last_user_text"]
    assert (view.system_text or None) == want["system_text"]


def test_garbage_disables_capture_for_that_response_only() -> None:
    case = next(c for c in CASES if c.name == "openai-chat/basic_text_stream")
    broken = case.codec.follower("text/event-stream", case.path, "")
    broken.feed(b"data: {not json}\n\n")
    broken.feed(case.response)
    assert broken.failed
    assert broken.finish().clean_end is False
    check(case, follow(case, [case.response]), "after a broken sibling")


def test_invalid_utf8_in_an_event_is_replaced_not_fatal() -> None:
    case = next(c for c in CASES if c.name == "anthropic-messages/basic_text_stream")
    follower = case.codec.follower("text/event-stream", case.path, "")
    follower.feed(case.response)
    follower.feed(b'event: ping\ndata: {"type": "ping", "x": "\xff\xfe"}\n\n')
    assert not follower.failed
    assert follower.finish().assistant_text == case.expect["assistant_text"]
