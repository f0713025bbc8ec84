"""A restatement in fewer words never replaces the richer fact it restates.

"I live in Berlin, in Kreuzberg near the canal" then "Yes, I live in Berlin": the second turn
is extracted as "Lives in Berlin", the same single-valued slot with a less specific object,
and the store would supersede the richer fact with it. Before a page is written, each such
fact is checked against the owner's live memories about its subject
(`claims.less_specific`, the rule admin and import writes follow too) and dropped when one
says the same with more: the richer fact stays current.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memtap.engine.api import StoreError, StoreUnavailable
from memtap.engine.claims import less_specific
from memtap.engine.ports import PlannedTurn, RecordStore
from memtap.engine.supersession.conflict import claim_of


async def drop_restatements(
    planned: Sequence[PlannedTurn], records: RecordStore
) -> list[PlannedTurn]:
    """`planned` without the single-valued facts a richer live memory already states."""
    kept: list[PlannedTurn] = []
    for item in planned:
        try:
            facts = [
                (fact, meta)
                for fact, meta in item.facts
                if fact.slot is None
                or not await _restates(fact.content, fact.subject, item, records)
            ]
        except (StoreError, StoreUnavailable):
            raise
        except Exception:  # noqa: BLE001 - a bad row is the write's to isolate and count
            kept.append(item)
            continue
        kept.append(
            item if len(facts) == len(item.facts) else replace(item, facts=tuple(facts))
        )
    return kept


async def _restates(
    content: str, subject: str, item: PlannedTurn, records: RecordStore
) -> bool:
    claim = claim_of(content)
    if claim is None:
        return False
    for other in await records.live_about(item.row.turn.owner, subject):
        theirs = claim_of(other.content)
        if (
            theirs is not None
            and theirs.subject == claim.subject
            and less_specific(claim, theirs)
        ):
            return True
    return False
