"""What a memory claims about the user (its subject, slot, polarity and object), and when two
claims conflict. Pure, and free of the rules: extraction reads a claim from a memory's
content (`supersession/conflict.py`) and the outbox worker stores it in the memory's metadata
(`metadata["claim"]`); ranking reads it back from there (`retrieval/present.py`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memtap.engine.text.normal import normalise
from memtap.engine.types import Memory

CLAIM_KEY = "claim"
"""The metadata key a claim is stored under (with `subject` null: the memory claims
nothing)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """What one memory says about the user: the subject it supersedes others on."""

    subject: str
    slot: str | None
    family: str
    polarity: str
    obj: str
    """The object as stored (third person), for specificity."""

    @property
    def single_valued(self) -> bool:
        """One live value at a time (home city, employer, editor, …)."""
        return self.slot is not None

    def as_metadata(self, content: str) -> dict[str, Any]:
        return {
            "of": content_digest(content),
            "subject": self.subject,
            "slot": self.slot,
            "family": self.family,
            "polarity": self.polarity,
            "obj": self.obj,
        }


ClaimReader = Callable[[Memory], "Claim | None"]
"""A memory -> its claim (None: it claims nothing)."""


def content_digest(content: str) -> str:
    """Which content a stored claim was read from: a content edited since (admin patch, an
    edited import) makes the stored claim stale, and it is read again."""
    return hashlib.sha1(content.encode()).hexdigest()[:12]


def stored_claim(memory: Memory) -> tuple[bool, Claim | None]:
    """(whether the memory carries a current stored claim, that claim). Rows written before
    claims were stored, memories written by the admin API and memories whose content changed
    since carry none."""
    raw = memory.metadata.get(CLAIM_KEY)
    if not isinstance(raw, dict) or raw.get("of") != content_digest(memory.content):
        return False, None
    if raw.get("subject") is None:
        return True, None
    try:
        slot = raw.get("slot")
        return True, Claim(
            str(raw["subject"]),
            str(slot) if slot is not None else None,
            str(raw["family"]),
            str(raw["polarity"]),
            str(raw["obj"]),
        )
    except KeyError:
        return False, None


def claim_metadata(claim: Claim | None, content: str) -> dict[str, Any]:
    """What the worker stores under `CLAIM_KEY` for a memory of `content`."""
    if claim is None:
        return {"of": content_digest(content), "subject": None}
    return claim.as_metadata(content)


def less_specific(new: Claim, old: Claim) -> bool:
    """`new` says the same as `old` with fewer words ("Lives in Berlin" after "Lives in
    Berlin, Kreuzberg"): a restatement, which never replaces the richer fact."""
    if new.polarity != old.polarity:
        return False
    mine, theirs = set(words(new.obj)), set(words(old.obj))
    return bool(mine) and mine < theirs


def conflict(a: Claim, b: Claim) -> bool:
    """Two claims that cannot both be current: the same single-valued slot with different
    objects, or the same object with opposite polarity."""
    if a.subject != b.subject:
        return False
    if a.polarity != b.polarity:
        return True
    return a.single_valued and words(a.obj) != words(b.obj)


def words(text: str) -> tuple[str, ...]:
    return tuple(w for w in normalise(text).split("_") if w)
