"""The conversation recall set (tests/datasets/conversations/*.jsonl): loading, and the one
answer-matching rule the benchmark and the data set's integrity test share.

An answer is found in a text when every content word of the answer appears in it as a word
(case-insensitive, accents kept); an ISO date answer (`YYYY-MM-DD`, a "when" question) is
found when the text holds that date, as written or as the memory block dates a line
(`[8 May 2023]`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from memtap.engine.memory_block import spoken_day

DATASET = Path(__file__).resolve().parents[1] / "datasets" / "conversations"
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_WORD = re.compile(r"[\w'’\-,.]+", re.UNICODE)
# Words that carry no answer: "the 14th of June" is found as "14th June".
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "and",
        "or",
        "my",
        "our",
        "your",
        "de",
        "la",
        "el",
        "le",
        "du",
        "des",
    ]
)


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    session: str
    role: str
    content: str
    ts: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    answer: str
    kind: str
    evidence: tuple[str, ...]
    superseded: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    persona: str
    speakers: tuple[str, ...]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def load(path: Path) -> Conversation:
    header: dict[str, object] = {}
    turns: list[Turn] = []
    questions: list[Question] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        kind = record.pop("type")
        if kind == "conversation":
            header = record
        elif kind == "turn":
            turns.append(Turn(**record))
        elif kind == "question":
            questions.append(
                Question(
                    **{
                        **record,
                        "evidence": tuple(record["evidence"]),
                        "superseded": tuple(record["superseded"]),
                    }
                )
            )
        else:
            raise ValueError(f"{path.name}: unknown record type {kind!r}")
    return Conversation(
        str(header["id"]),
        str(header["persona"]),
        tuple(header["speakers"]),  # type: ignore[arg-type]
        tuple(turns),
        tuple(questions),
    )


def load_all(folder: Path = DATASET) -> list[Conversation]:
    return [load(path) for path in sorted(folder.glob("*.jsonl"))]


def words(text: str) -> set[str]:
    """The words of `text`, lower-cased, with surrounding punctuation trimmed."""
    out = set()
    for raw in _WORD.findall(text.lower()):
        word = raw.strip("'’-,.")
        if word:
            # "18,000" and "7,4" stay whole; "d'agility" and "two-year-old" also count as
            # their parts.
            out.add(word)
            out.update(part for part in re.split(r"['’\-]", word) if part)
    return out


def answer_words(answer: str) -> set[str]:
    return {w for w in words(answer) if w not in _FILLER} or words(answer)


def answer_found(answer: str, text: str) -> bool:
    if ISO_DATE.match(answer):
        # The date as memtap writes it in the block ("8 May 2023") or as the data set does.
        return answer in text or f"[{spoken_day(answer)}]" in text
    return answer_words(answer) <= words(text)
