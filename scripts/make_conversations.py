"""Compose the conversation recall set (tests/datasets/conversations/*.jsonl) from the
hand-written material in scripts/conversation_material/.

    .venv/bin/python scripts/make_conversations.py            # rewrite the data set
    .venv/bin/python scripts/make_conversations.py --blind    # the two personas written blind

Each persona's facts land in their sessions between fact-free turns (task requests with
their follow-ups, small talk, the persona's own chatter, a few in Spanish, French or
German) drawn in a seeded order, so the output is the same on every run. Sessions are days
or weeks apart; every message has its own timestamp. One file per conversation, JSON lines:

    {"type": "conversation", "id", "persona", "speakers": ["user", "assistant"], "sessions"}
    {"type": "turn", "id", "session", "role", "content", "ts"}             (in order)
    {"type": "question", "id", "question", "answer", "kind", "evidence": [turn ids],
     "superseded": [turn ids]}

A "when" question's answer is an ISO date (`YYYY-MM-DD`).
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.conversation_material import (
    aiko,
    claire,
    jonas,
    maya,
    priya,
    rafael,
    tomas,
)
from scripts.conversation_material.common import (
    ACKS,
    FOLLOWUPS,
    OPENERS,
    SMALLTALK,
    TASKS,
)
from scripts.conversation_material.types import Fact, Persona

PERSONAS: tuple[Persona, ...] = (
    maya.PERSONA,
    tomas.PERSONA,
    claire.PERSONA,
    jonas.PERSONA,
    priya.PERSONA,
)
OUT = Path(__file__).resolve().parents[1] / "tests" / "datasets" / "conversations"
# Written on 2026-12-06 by a writer who saw neither the engine nor the five above, to measure
# recall on conversations memtap was not tuned against (`--blind`; eval_conversations --dataset).
BLIND: tuple[Persona, ...] = (aiko.PERSONA, rafael.PERSONA)
BLIND_OUT = OUT.parent / "conversations_blind"
USER_TURNS_PER_SESSION = (13, 18)
CLOSERS = frozenset(
    {"good night", "ok back to work", "ok that's enough for now", "I need a break"}
)


class Deck:
    """Draws from `cards` in a shuffled order, reshuffling when they run out, so a small-talk
    line comes back only after all the others have been used."""

    def __init__(self, cards: tuple[tuple[str, str], ...], rng: random.Random) -> None:
        self.cards, self.rng, self.left = cards, rng, list[tuple[str, str]]()

    def draw(self) -> tuple[str, str]:
        if not self.left:
            self.left = list(self.cards)
            self.rng.shuffle(self.left)
        return self.left.pop()


@dataclass(slots=True)
class Item:
    user: str
    reply: str
    fact: Fact | None = None


def _session_items(
    persona: Persona, session: int, rng: random.Random, pools: dict[str, Any]
) -> list[Item]:
    facts = [
        Item(f.user, f.reply or rng.choice(ACKS), f)
        for f in persona.facts
        if f.session == session
    ]
    want = rng.randint(*USER_TURNS_PER_SESSION)
    filler: list[list[Item]] = []
    while len(facts) + sum(len(g) for g in filler) < want:
        roll = rng.random()
        if roll < 0.5 and pools["tasks"]:
            user, reply = pools["tasks"].pop()
            opener = rng.choice(OPENERS)
            group = [
                Item(opener + (user[0].lower() + user[1:] if opener else user), reply)
            ]
            if rng.random() < 0.45:
                group.append(Item(*pools["followups"].draw()))
            filler.append(group)
        elif roll < 0.62 and pools["chatter"]:
            filler.append([Item(*pools["chatter"].pop())])
        else:
            filler.append([Item(*pools["smalltalk"].draw())])
    # Facts go between the filler groups, never inside a task and its follow-up.
    groups: list[list[Item]] = filler + [[f] for f in facts]
    rng.shuffle(groups)
    if rng.random() < 0.5:  # sessions often open with a greeting
        groups.insert(
            0, [Item(*rng.choice(SMALLTALK[:4] + SMALLTALK[12:14] + SMALLTALK[19:21]))]
        )
    # "good night" and "that's enough for now" end a session, wherever they were drawn.
    groups.sort(key=lambda group: group[-1].user in CLOSERS)
    return [item for group in groups for item in group]


def compose(persona: Persona) -> list[dict[str, Any]]:
    rng = random.Random(zlib.crc32(persona.id.encode()))
    tasks = list(TASKS)
    rng.shuffle(tasks)
    chatter = list(persona.chatter)
    rng.shuffle(chatter)
    pools: dict[str, Any] = {
        "tasks": tasks,
        "chatter": chatter,
        "followups": Deck(FOLLOWUPS, rng),
        "smalltalk": Deck(SMALLTALK, rng),
    }
    day = date.fromisoformat(persona.start)
    sessions = len(persona.gaps_days) + 1
    records: list[dict[str, Any]] = [
        {
            "type": "conversation",
            "id": persona.id,
            "persona": persona.name,
            "speakers": ["user", "assistant"],
            "sessions": sessions,
        }
    ]
    fact_turn: dict[str, tuple[str, date]] = {}
    number = 0
    for session in range(sessions):
        if session:
            day += timedelta(days=persona.gaps_days[session - 1])
        clock = datetime(
            day.year,
            day.month,
            day.day,
            persona.hour,
            rng.randint(0, 40),
            rng.randint(0, 59),
            tzinfo=UTC,
        )
        session_id = f"{persona.id}-s{session + 1:02d}"
        for item in _session_items(persona, session, rng, pools):
            for role, content in (("user", item.user), ("assistant", item.reply)):
                number += 1
                turn_id = f"{persona.id}-{number:04d}"
                records.append(
                    {
                        "type": "turn",
                        "id": turn_id,
                        "session": session_id,
                        "role": role,
                        "content": content,
                        "ts": clock.isoformat().replace("+00:00", "Z"),
                    }
                )
                if item.fact is not None:
                    label = (
                        item.fact.label
                        if role == "user"
                        else f"{item.fact.label}:reply"
                    )
                    fact_turn[label] = (turn_id, clock.date())
                clock += (
                    timedelta(seconds=rng.randint(15, 50))
                    if role == "user"
                    else timedelta(seconds=rng.randint(40, 240))
                )
    number = 0
    asked = [(fact, question) for fact in persona.facts for question in fact.questions]
    by_label = {fact.label: fact for fact in persona.facts}
    asked += [(by_label[label], question) for label, question in persona.extra]
    for fact, question in asked:
        if True:
            number += 1
            turn_id, said = fact_turn[
                fact.label + (":reply" if question.kind == "assistant" else "")
            ]
            answer = question.answer
            if answer.startswith("@"):
                answer = (said + timedelta(days=int(answer[1:]))).isoformat()
            records.append(
                {
                    "type": "question",
                    "id": f"{persona.id}-q{number:03d}",
                    "question": question.text,
                    "answer": answer,
                    "kind": question.kind,
                    "evidence": [
                        turn_id,
                        *(fact_turn[label][0] for label in question.also),
                    ],
                    "superseded": [
                        fact_turn[label][0] for label in question.superseded
                    ],
                }
            )
    return records


def main() -> None:
    blind = "--blind" in sys.argv[1:]
    out = BLIND_OUT if blind else OUT
    out.mkdir(parents=True, exist_ok=True)
    for persona in BLIND if blind else PERSONAS:
        records = compose(persona)
        path = out / f"{persona.id}.jsonl"
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
            encoding="utf-8",
        )
        turns = sum(r["type"] == "turn" for r in records)
        questions = sum(r["type"] == "question" for r in records)
        print(f"{path.name}: {turns} turns, {questions} questions", file=sys.stderr)


if __name__ == "__main__":
    main()
