"""Qdrant filters for memtap's visibility rules, built from the same `Live` the SQLite store uses.

`engine.memory_rules.Live` says which rows retrieval may return: not superseded, not
expired (`expires_at > now`), inside the retention window (`updated_at >= cutoff`), of the
owner unless scope is global, and of exactly one session (NULL session when None) when
`match_session`. Translating that one object keeps both stores in step;
`tests/engine/test_store_contract.py` checks that they agree.
"""

from __future__ import annotations

from qdrant_client import models

from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.payload import iso_to_ts
from memtap.engine.types import ListQuery


def match(key: str, value: str | bool) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def is_null(key: str) -> models.IsNullCondition:
    return models.IsNullCondition(is_null=models.PayloadField(key=key))


def owner_filter(owner: str) -> models.Filter:
    return models.Filter(must=[match("owner", owner)])


def memory_ids_filter(ids: list[str]) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="memory_id", match=models.MatchAny(any=ids))]
    )


def session_condition(session: str | None) -> models.Condition:
    return is_null("session") if session is None else match("session", session)


def live_filter(live: Live) -> models.Filter:
    return models.Filter(must=live_conditions(live))


def live_conditions(live: Live) -> list[models.Condition]:
    # live_until_ts > now  ==  not superseded AND not expired (see qdrant/payload.py).
    must: list[models.Condition] = [
        models.FieldCondition(
            key="live_until_ts", range=models.Range(gt=iso_to_ts(live.now))
        ),
    ]
    if live.cutoff is not None:
        must.append(
            models.FieldCondition(
                key="updated_at_ts", range=models.Range(gte=iso_to_ts(live.cutoff))
            )
        )
    if live.owner is not None:
        must.append(match("owner", live.owner))
    if live.match_session:
        must.append(session_condition(live.session))
    return must


def list_filter(query: ListQuery) -> models.Filter:
    """The admin listing: owner / session / type equality, superseded hidden unless asked,
    `q` = every word of it in the content (a full-text index in server mode)."""
    must: list[models.Condition] = []
    if query.owner is not None:
        must.append(match("owner", query.owner))
    if query.session is not None:
        must.append(match("session", query.session))
    if query.type is not None:
        must.append(match("type", query.type))
    if not query.include_superseded:
        must.append(match("superseded", False))
    if query.q and query.q.strip():
        must.append(
            models.FieldCondition(key="content", match=models.MatchText(text=query.q))
        )
    return models.Filter(must=must)
