"""A model's fact as the worker stores it: with the claim the rules would give the same
content (`conflict.claim_of`: family, slot, subject), so a model's "Lives in Bergen" and a
rule's "Lives in Oslo" settle against each other whichever extractor kept each, and with the
memories the model said it replaces."""

from __future__ import annotations

from dataclasses import replace

from memtap.engine.extraction.keys import sanitise, stable_key
from memtap.engine.extractors.answer import ModelFact
from memtap.engine.supersession.conflict import claim_of
from memtap.engine.types import ExtractedFact


def extracted(fact: ModelFact) -> ExtractedFact:
    content = sanitise(fact.content)
    key = stable_key(fact.family, content)
    claim = claim_of(content)
    # A content no rule reads claims no slot: its own subject, like a rule's kept
    # self-statement, so it supersedes only what the model named in `replaces`.
    subject, slot = (claim.subject, claim.slot) if claim is not None else (key, None)
    return ExtractedFact(
        type=fact.type,
        category=fact.family,
        content=content,
        key=key,
        subject=subject,
        polarity="negative" if fact.polarity == "negative" else "positive",
        role="user",
        family=fact.family,
        slot=slot,
        clause="",
        lang=fact.lang,
        replaces=fact.replaces,
    )


def turn_facts(facts: list[ModelFact], turns: int) -> list[tuple[ExtractedFact, ...]]:
    """The facts of each of `turns` turns, one per key, in the answer's order."""
    out: list[dict[str, ExtractedFact]] = [{} for _ in range(turns)]
    for fact in facts:
        item = extracted(fact)
        kept = out[fact.turn].get(item.key)
        if kept is None:
            out[fact.turn][item.key] = item
        elif item.replaces:  # the same fact twice: keep every replacement named
            merged = tuple(dict.fromkeys(kept.replaces + item.replaces))
            out[fact.turn][item.key] = replace(kept, replaces=merged)
    return [tuple(turn.values()) for turn in out]
