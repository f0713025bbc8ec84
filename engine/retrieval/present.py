"""Time-aware ranking: what is true now wins over what was true before.

Two live memories can contradict each other without any slot linking them (written before
slots existed, imported, or stored by a client that never said they were about the same
thing). Over the ranked hits of one retrieval:

- hits whose claims conflict (`engine.claims.conflict`: one single-valued slot with
  two values, or one object with both polarities; each hit's claim is the one the worker
  stored in its metadata, or what the caller's `ClaimReader` reads for older rows) are one group; only its newest member
  (`updated_at`) is kept, at the rank of the group's best hit — two conflicting facts are
  never both injected as current, whatever the question;
- when the question is about the present ("now", "currently", "these days", "still", and
  their Spanish, Portuguese, French and German forms), hits that look like two versions of
  the same statement (they share at least half of the shorter one's topical words but differ)
  are ordered newest first, so the current version outranks the stale one; and of two that
  say the same up to their last words ("My laptop is a ThinkPad" / "… a MacBook Air") the
  older is left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memtap.engine.claims import Claim, ClaimReader, conflict, stored_claim
from memtap.engine.stopwords import STOPWORDS
from memtap.engine.types import Hit

PRESENT = re.compile(
    r"\b(?:now|nowadays|currently|current|these\s+days|still|at\s+the\s+moment|right\s+now|"
    r"any\s?more|ahora|actualmente|hoy\s+en\s+d[ií]a|todav[ií]a|a[uú]n|estos\s+d[ií]as|"
    r"agora|atualmente|hoje\s+em\s+dia|ainda|nos\s+dias\s+de\s+hoje|maintenant|actuellement|"
    r"en\s+ce\s+moment|de\s+nos\s+jours|toujours|encore|jetzt|derzeit|aktuell|momentan|"
    r"zurzeit|zur\s+zeit|heutzutage|immer\s+noch|noch|mittlerweile)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
SAME_STATEMENT = 0.5
"""Share of the shorter statement's topical words two versions of it have in common."""


@dataclass(frozen=True, slots=True)
class Settled:
    hits: list[Hit]
    dropped: list[str]
    """Ids left out because a newer hit contradicts them."""


def asks_about_present(query: str) -> bool:
    return PRESENT.search(query) is not None


def settle(
    ranked: Sequence[Hit], query: str, read_claim: ClaimReader | None = None
) -> Settled:
    """`ranked` (best first) with conflicts settled as the module says. `read_claim` reads
    the claim of a memory that carries none (None: such a memory claims nothing)."""
    if len(ranked) < 2:
        return Settled(list(ranked), [])
    # Each hit's claim read once, for both steps.
    claims = {h.memory.id: _claim(h, read_claim) for h in ranked}
    hits, dropped = _newest_of_conflicts(list(ranked), claims)
    if asks_about_present(query):
        hits = _newer_versions_first(hits)
        hits, stale = _without_stale_versions(hits, claims)
        dropped += stale
    return Settled(hits, dropped)


def _claim(hit: Hit, read_claim: ClaimReader | None) -> Claim | None:
    has, claim = stored_claim(hit.memory)
    if has or read_claim is None:
        return claim
    return read_claim(hit.memory)


def _newest_of_conflicts(
    hits: list[Hit], claim_by_id: dict[str, Claim | None]
) -> tuple[list[Hit], list[str]]:
    claims = [claim_by_id[h.memory.id] for h in hits]
    group = list(range(len(hits)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    # Only claims on one subject can conflict: pairs within a subject, not all pairs (a
    # hybrid ranking of ~40 candidates made ~800 checks a request).
    by_subject: dict[str, list[int]] = {}
    for i, claim in enumerate(claims):
        if claim is not None:
            by_subject.setdefault(claim.subject, []).append(i)
    for members in by_subject.values():
        for k, i in enumerate(members):
            a = claims[i]
            for j in members[k + 1 :]:
                b = claims[j]
                if a is not None and b is not None and conflict(a, b):
                    group[root(j)] = root(i)
    newest: dict[int, int] = {}
    for i, hit in enumerate(hits):
        r = root(i)
        best = newest.get(r)
        if best is None or hit.memory.updated_at > hits[best].memory.updated_at:
            newest[r] = i
    kept, dropped, placed = [], [], set()
    for i, hit in enumerate(hits):
        r = root(i)
        if r in placed:
            if newest[r] != i:
                dropped.append(hit.memory.id)
            continue
        placed.add(r)
        kept.append(hits[newest[r]])  # the group's newest takes its best rank
        if newest[r] != i:
            dropped.append(hit.memory.id)
    return kept, dropped


def _newer_versions_first(hits: list[Hit]) -> list[Hit]:
    words = [_topical(h.memory.content) for h in hits]
    order = list(range(len(hits)))
    # Walk down the ranking: a newer version of a statement ranked above moves up to it.
    i = 0
    while i < len(order):
        for j in range(i + 1, len(order)):
            a, b = hits[order[i]], hits[order[j]]
            if b.memory.updated_at > a.memory.updated_at and _versions(
                words[order[i]], words[order[j]]
            ):
                order.insert(i, order.pop(j))
                break
        else:
            i += 1
    return [hits[k] for k in order]


def _without_stale_versions(
    hits: list[Hit], claims: dict[str, Claim | None]
) -> tuple[list[Hit], list[str]]:
    """For a question about the present: of two statements that say the same thing up to
    their last words ("My laptop is a ThinkPad" / "My laptop is a MacBook Air"), the older
    is not current."""
    # Each hit read once: (hit, its words, whether a rule reads it).
    kept: list[tuple[Hit, list[str], bool]] = []
    stale: list[str] = []
    for hit in hits:  # newer versions already rank first
        words = _WORD.findall(hit.memory.content.lower())
        known = claims[hit.memory.id] is not None
        if any(
            # two facts the rules read are settled by their claims ("Is allergic to
            # peanuts" and "… to shellfish" are both true)
            not (known and k_known)
            and _same_frame(words, k_words)
            and k.memory.updated_at > hit.memory.updated_at
            for k, k_words, k_known in kept
        ):
            stale.append(hit.memory.id)
        else:
            kept.append((hit, words, known))
    return [k for k, _, _ in kept], stale


def _same_frame(a: list[str], b: list[str]) -> bool:
    if a == b:
        return False
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    return prefix >= max(2, (min(len(a), len(b)) + 1) // 2)


def _versions(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b or a == b:
        return False
    return len(a & b) >= SAME_STATEMENT * min(len(a), len(b))


def _topical(text: str) -> frozenset[str]:
    return frozenset(
        w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS
    )
