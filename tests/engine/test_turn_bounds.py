"""Bounded capture's accumulator and turn cut (engine/turn_bounds.py)."""

from __future__ import annotations

import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from memtap.engine.extraction.speech import MAX_INPUT_CHARS
from memtap.engine.limits import MAX_TURN_TEXT_CHARS
from memtap.engine.turn_bounds import TailText, bounded_turn, tail
from memtap.engine.types import Turn


def _turn(user: str, assistant: str, truncated: int = 0) -> Turn:
    return Turn(
        request_id="r1",
        owner="o1",
        session=None,
        format="openai-chat",
        user_text=user,
        assistant_text=assistant,
        truncated_chars=truncated,
    )


def test_the_capture_bound_covers_what_extraction_reads() -> None:
    assert MAX_TURN_TEXT_CHARS >= MAX_INPUT_CHARS


@given(st.lists(st.text(max_size=40), max_size=60), st.integers(1, 50))
def test_tail_text_is_the_tail_of_everything_appended(
    pieces: list[str], limit: int
) -> None:
    acc = TailText(limit)
    for piece in pieces:
        acc.append(piece)
    whole = "".join(pieces)
    assert acc.text() == whole[-limit:] if whole else acc.text() == ""
    assert acc.dropped == max(0, len(whole) - limit)
    assert len(acc) == min(len(whole), limit)


def test_tail_text_memory_is_constant_whatever_the_length() -> None:
    acc = TailText(64 * 1024)
    piece = "x" * 1000
    tracemalloc.start()
    try:
        for _ in range(50_000):  # 50 MB appended
            acc.append(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, f"peak {peak} bytes"
    assert len(acc.text()) == 64 * 1024
    assert acc.dropped == 50_000_000 - 64 * 1024


def test_one_piece_larger_than_the_limit_is_cut_at_once() -> None:
    acc = TailText(10)
    acc.append("a" * 5 + "b" * 100)
    assert acc.text() == "b" * 10
    assert acc.dropped == 95


def test_tail_of_a_short_text_is_the_text() -> None:
    assert tail("abc", 5) == ("abc", 0)
    assert tail("abcdef", 4) == ("cdef", 2)


def test_bounded_turn_cuts_both_sides_and_counts_the_cut() -> None:
    turn = bounded_turn(_turn("u" * 30 + "U" * 10, "a" * 5 + "A" * 10, truncated=7), 10)
    assert turn.user_text == "U" * 10
    assert turn.assistant_text == "A" * 10
    assert turn.truncated_chars == 7 + 30 + 5


def test_bounded_turn_returns_a_short_turn_unchanged() -> None:
    short = _turn("hi", "hello")
    assert bounded_turn(short) is short
