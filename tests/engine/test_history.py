"""Reading past conversations (engine/history/) and the record of imported turns."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memtap.engine.history.chatgpt import split_array
from memtap.engine.history.jsonl import LineSplitter, read_line
from memtap.engine.history.messages import (
    HistoryMessage,
    Owners,
    TurnPairing,
    said_at_of,
)
from memtap.engine.sqlite import imported_turns
from memtap.engine.sqlite.migrations import migrate
from memtap.engine.types import Turn

OWNERS = Owners(lambda key: "k" + key[:3], lambda owner: owner.isalnum(), "dflt")


def message(role: str, text: str, session: str = "s", line: int = 1) -> HistoryMessage:
    return HistoryMessage("o", session, role, text, "2026-11-20T10:00:00.000Z", line)  # type: ignore[arg-type]


def test_pairing_user_with_every_reply_until_the_next_user_message() -> None:
    pairing = TurnPairing()
    out = []
    for m in [
        message("assistant", "hello first", line=1),
        message("user", "q1", line=2),
        message("user", "q2 in another session", session="t", line=3),
        message("assistant", "a1", line=4),
        message("assistant", "a1 more", line=5),
        message("user", "q3", line=6),
    ]:
        out += list(pairing.add(m))
    out += list(pairing.close())
    turns = {t.lines: (t.turn.user_text, t.turn.assistant_text) for t in out}
    assert turns == {
        (1,): ("", "hello first"),
        (2, 4, 5): ("q1", "a1\n\na1 more"),
        (3,): ("q2 in another session", ""),
        (6,): ("q3", ""),
    }
    ids = [t.turn.request_id for t in out]
    assert len(set(ids)) == 4 and all(i.startswith("import-") for i in ids)


def test_request_ids_are_deterministic() -> None:
    def ids() -> list[str]:
        pairing = TurnPairing()
        got = list(pairing.add(message("user", "q")))
        got += list(pairing.add(message("assistant", "a")))
        return [t.turn.request_id for t in got + list(pairing.close())]

    assert ids() == ids()


def test_open_sessions_are_bounded() -> None:
    pairing = TurnPairing(max_open=2)
    out = []
    for i in range(5):
        out += list(pairing.add(message("user", f"q{i}", session=f"s{i}")))
    assert len(out) == 3 and len(list(pairing.close())) == 2


def test_timestamps() -> None:
    assert said_at_of("2026-11-20T10:00:00+02:00") == "2026-11-20T08:00:00.000Z"
    assert said_at_of("2026-11-20 10:00:00") == "2026-11-20T10:00:00.000Z"
    assert said_at_of(1795000000) == "2026-11-18T11:06:40.000Z"
    assert said_at_of(1795000000123) == "2026-11-18T11:06:40.123Z"
    for bad in (None, True, "yesterday", [1], 1e20):
        with pytest.raises(ValueError):
            said_at_of(bad)


def test_read_line_owner_rules() -> None:
    line = {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
        "ts": 1795000000,
    }
    [m], error, _ = read_line(
        json.dumps({**line, "api_key": "abcdef"}).encode(), 1, OWNERS
    )
    assert error is None and m.owner == "kabc" and m.content == "hi"
    [m], _, _ = read_line(json.dumps(line).encode(), 1, OWNERS)
    assert m.owner == "dflt"
    _, error, _ = read_line(json.dumps({**line, "owner": "../x"}).encode(), 7, OWNERS)
    assert error is not None and error.line == 7 and "owner" in error.message


def test_line_splitter_drops_overlong_lines_by_number() -> None:
    splitter = LineSplitter(limit=10)
    got = []
    for chunk in (b"short\nthis line is far", b" too long\nok", b"\nlast"):
        got += list(splitter.feed(chunk))
    got += list(splitter.close())
    assert got == [(1, b"short"), (2, None), (3, b"ok"), (4, b"last")]


@pytest.mark.parametrize("size", [1, 2, 5, 64, 10_000])
def test_split_array_any_chunking(size: int) -> None:
    items = [{"a": 'x\\"]}{[', "b": [1, {"c": "é"}]}, {}, {"d": "\\\\"}]
    doc = (" \n" + json.dumps(items, ensure_ascii=False) + "\n").encode()
    chunks = [doc[i : i + size] for i in range(0, len(doc), size)]
    out = list(split_array(chunks))
    assert [json.loads(raw) for _, raw in out] == items
    assert all(doc[offset : offset + len(raw)] == raw for offset, raw in out)


@pytest.mark.parametrize("doc", [b'{"a": 1}', b'["x"]', b"[1, [2]]", b'[{"a": 1}'])
def test_split_array_refuses_what_is_not_an_array_of_objects(doc: bytes) -> None:
    with pytest.raises(ValueError):
        list(split_array([doc]))


def _db(tmp_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    migrate(conn)
    return conn


def _turn(request_id: str, **changes: object) -> Turn:
    fields: dict[str, object] = {
        "request_id": request_id,
        "owner": "o",
        "session": "s",
        "format": "openai-chat",
        "user_text": "I went to the dentist yesterday.",
        "assistant_text": "",
        "created_at": "2026-11-20T10:00:00.000Z",
    }
    fields.update(changes)
    return Turn(**fields)  # type: ignore[arg-type]


def test_a_turn_is_recorded_and_queued_together_or_not_at_all(tmp_path: Path) -> None:
    conn = _db(tmp_path)
    conn.execute("BEGIN IMMEDIATE")
    seqs = imported_turns.enqueue_new(conn, [_turn("a"), _turn("b")], "now")
    conn.execute("COMMIT")
    assert all(isinstance(s, int) for s in seqs)
    conn.execute("BEGIN IMMEDIATE")
    assert imported_turns.enqueue_new(conn, [_turn("a"), _turn("c")], "now")[0] is None
    conn.execute("COMMIT")
    # A batch that fails half-way (the outbox row of its second turn cannot be written)
    # leaves neither its record nor its row: the transaction rolls back whole.
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(TypeError):
        imported_turns.enqueue_new(
            conn, [_turn("d"), _turn("e", model=object())], "now"
        )
    conn.execute("ROLLBACK")
    recorded = {r[0] for r in conn.execute("SELECT request_id FROM imported_turns")}
    queued = {r[0] for r in conn.execute("SELECT request_id FROM outbox")}
    assert recorded == queued == {"a", "b", "c"}
