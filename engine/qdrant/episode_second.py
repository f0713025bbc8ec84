"""The episode windows' second vectors in Qdrant, from the multilingual model
(`engine/embeddings/multilingual.py`), for `QdrantEpisodeStore`: what `sqlite/episode_second.py`
is for the SQLite store. Which windows get one, where they are kept, which owners' questions go
to both models.

**Where.** A collection of its own beside the episodes' (`<collection>_episodes_ml`): one point
per window said in a routed language, at the window's point id, with one dense vector (512-d,
Cosine) and a copy of the window's payload (without the head's `content`), so `live_filter`
and the deletes' filters read it as they read the window. Not a second named vector in the
episodes collection: a collection's vectors are fixed when it is created, and adding one to an
existing collection takes `create_vector_name`, which only the newest Qdrant servers and
clients have (memtap accepts qdrant-client >= 1.10): every deployment whose episodes
collection already exists would be left out or have to re-create it. A collection of its own
works with every server, leaves the episode points as they were, and costs a deployment whose
users all write English one empty collection.

**Which windows.** A window point's payload `ml` says whether it was looked at: `yes` (its
second vector is stored), `no` (its message is not in a routed language, or it is an
assistant's window: never embedded), absent (not yet: written with the route off or before it
existed, or its second embedding failed). Decided when a window is written (the second vectors
are stored before the window points, so `yes` never names a missing vector) and, for the
absent ones, by `embed_pending` in the background.

**Which owners.** `multilingual.owner_routed`, as for SQLite, over a count on the episodes
collection (the owner's `ml: yes` windows), kept per owner for `ROUTE_TTL_S` in process: an
English-only owner's questions cost one count a minute, not a round trip each, and never
reach the second model. A write of this
process that adds an owner's second vectors, a delete, an erase forget the owner's entry;
another replica's writes are seen within the TTL.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from qdrant_client import models

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import (
    MultilingualSource,
    SecondPasses,
    best_of,
    map_for,
    maps_onto,
    needs_second,
    owner_routed,
    second_query,
)
from memtap.engine.qdrant.collection import DENSE, Collection
from memtap.engine.qdrant.episode_points import window_point
from memtap.engine.qdrant.filters import match
from memtap.engine.qdrant.points import QdrantPoints
from memtap.engine.qdrant.transport import QdrantTransport

log = logging.getLogger("memtap.episodes")

ML = "ml"
"""The window point's payload field: `YES`, `NO` or absent (not looked at yet)."""
YES, NO = "yes", "no"
ROUTE_TTL_S = 60.0
ROUTE_OWNERS = 10_000
"""Owners whose routing is kept (least recently asked dropped first)."""
INDEXED = (
    ("owner", "keyword"),
    ("session", "keyword"),
    ("episode_id", "keyword"),
    ("said_at_ts", "float"),
)
"""What `live_filter` and the deletes read on the second points."""

NOT_LOOKED_AT = models.Filter(
    must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=ML))]
)


class RouteCache:
    """Per owner: whether their questions go to both models, for `ttl_s`."""

    def __init__(
        self,
        ttl_s: float = ROUTE_TTL_S,
        max_owners: int = ROUTE_OWNERS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s, self.max_owners, self.clock = ttl_s, max_owners, clock
        self._entries: OrderedDict[str, tuple[float, bool]] = OrderedDict()

    def get(self, owner: str) -> bool | None:
        found = self._entries.get(owner)
        if found is None or self.clock() - found[0] > self.ttl_s:
            return None
        self._entries.move_to_end(owner)
        return found[1]

    def put(self, owner: str, routed: bool) -> None:
        self._entries[owner] = (self.clock(), routed)
        self._entries.move_to_end(owner)
        while len(self._entries) > self.max_owners:
            self._entries.popitem(last=False)

    def forget(self, owners: set[str] | None) -> None:
        if owners is None:
            self._entries.clear()
        for owner in owners or ():
            self._entries.pop(owner, None)


class SecondPoints:
    """The `_ml` collection of one episodes collection, and the routing over it.

    `source` None: the route is off (or the first model is not one the maps were fitted
    for, `maps_onto`), but points the route stored before are still deleted with their
    windows."""

    def __init__(
        self,
        transport: QdrantTransport,
        episodes: QdrantPoints,
        source: MultilingualSource | None,
    ) -> None:
        self.episodes = episodes
        self.source = source
        self.name = f"{episodes.collection.name}_ml"
        self.points = QdrantPoints(
            transport,
            Collection(
                transport,
                self.name,
                source.dim if source is not None else None,
                source.signature if source is not None else None,
                indexed=INDEXED,
            ),
            source,
            metrics=None,
        )
        self.routes = RouteCache()
        self.waiting = True
        """Some window of this process's may wait to be looked at: true at start (a
        collection written before the route, or with it off) and after a write whose second
        vectors failed; false once a pass or a count found none. Writes mark their windows
        themselves, so a running install scrolls for nothing."""
        self.passes = SecondPasses()
        self._model_checked = source is None
        """Whether this process compared the collection's model with the route's
        (`_same_model`): nothing to compare with the route off."""
        self._model_lock = asyncio.Lock()
        self._exists: bool | None = True if source is not None else None
        """Whether the collection exists: created on first use when the route is on, looked
        up by each delete until found when it is off (another replica, or an older run, may
        have created it)."""

    @classmethod
    def of(
        cls,
        transport: QdrantTransport,
        episodes: QdrantPoints,
        first: EmbeddingSource | None,
        second: MultilingualSource | None,
    ) -> SecondPoints:
        """The route on when there is a second model and the first is one its scores map
        onto (`maps_onto`); else off (older second points still follow their windows)."""
        on = second is not None and first is not None and maps_onto(first.model)
        if second is not None and not on:
            log.info(
                "episodes.multilingual_off",
                extra={"fields": {"reason": "the first model is not the packaged one"}},
            )
        return cls(transport, episodes, second if on else None)

    @property
    def on(self) -> bool:
        return self.source is not None

    @property
    def model(self) -> str:
        return self.source.model if self.source is not None else "off"

    async def _same_model(self) -> None:
        """Once a process, before the collection is written or searched: second vectors of
        another multilingual model (an upgrade that changed it) are not comparable with the
        question's, so they are dropped and their windows looked at again by `embed_pending`
        (their `ml: yes` cleared; a `no` is about the message's language and stands). The
        signature is the collection's metadata; a collection from before it is stamped."""
        if self._model_checked:
            return
        async with self._model_lock:  # a search and the background pass may both ask
            if not self._model_checked:
                await self._compare_models()
                self._model_checked = True

    async def _compare_models(self) -> None:
        assert self.source is not None
        current = self.source.signature
        # Read now: a replica that started at the same time may have moved the collection
        # to this model already (then there is nothing to do, and dropping again would
        # take the points it stored since).
        stored = await self.points.collection.embedding()
        if stored is not None and stored != current:
            log.info(
                "episodes.second_model_changed",
                extra={
                    "fields": {"collection": self.name, "was": stored, "now": current}
                },
            )
            # Windows first: a failure between the two leaves the old signature stored,
            # and the next process does it again.
            await self.episodes.call(
                "clear_second_marks",
                lambda c: c.delete_payload(
                    self.episodes.collection.name,
                    keys=[ML],
                    points=models.FilterSelector(
                        filter=models.Filter(must=[match(ML, YES)])
                    ),
                    wait=True,
                ),
            )
            await self.points.collection.drop()
            await self.points.collection.ensure()  # created with the current signature
            self.routes.forget(None)
            self.waiting = True
        elif stored is None:
            await self.points.collection.stamp(current)

    # -- writes -------------------------------------------------------------------------------
    async def write(
        self, points: list[models.PointStruct], messages: list[str]
    ) -> None:
        """Mark new window points `ml` (in place) and store the second vectors of those of a
        message in a routed language first. A failure leaves them unmarked: `embed_pending`
        tries again. The caller forgets the owners' routing once the points are written."""
        if self.source is None:
            return
        verdicts: dict[str, bool] = {}
        routed: list[models.PointStruct] = []
        for point, message in zip(points, messages, strict=True):
            payload = point.payload or {}
            if message not in verdicts:
                verdicts[message] = needs_second(message)
            if payload["role"] != "assistant" and verdicts[message]:
                routed.append(point)
            else:
                payload[ML] = NO
        if not routed:
            return
        if not self.source.loaded:
            # Its first load takes ~1.3 s: the turn is not held up by it. The windows stay
            # unmarked; the background pass (seconds later, off the turn's path) loads the
            # model and embeds them.
            self.waiting = True
            return
        try:
            await self._same_model()
            await self._store([(p.id, p.payload or {}) for p in routed])
        except Exception as exc:  # noqa: BLE001 - the first model's vectors stand alone
            second_failed("write", exc)
            self.waiting = True
            return
        for point in routed:
            (point.payload or {})[ML] = YES

    async def _store(self, items: Sequence[tuple[Any, dict[str, Any]]]) -> None:
        assert self.source is not None
        matrix = await self.source.embed([str(p["text"]) for _, p in items])
        batch = [
            models.PointStruct(
                id=pid,
                vector={DENSE: matrix[i].astype(float).tolist()},
                payload={
                    k: v
                    for k, v in payload.items()
                    if k not in ("content", ML, "vec_pending")
                },
            )
            for i, (pid, payload) in enumerate(items)
        ]
        await self.points.call(
            "upsert_second",
            lambda c: c.upsert(self.name, points=batch, wait=True),
        )

    async def embed_pending(self, max_items: int) -> int:
        """Look at up to `max_items` windows not yet looked at (written before the route,
        or with it off); how many were looked at."""
        return await self.passes.counted(self._embed_pending(max_items))

    async def _embed_pending(self, max_items: int) -> int:
        if self.source is None or max_items <= 0:
            return 0
        await self._same_model()
        self.waiting = False  # before the read: a failing write meanwhile sets it again
        records, _ = await self.episodes.call(
            "scroll",
            lambda c: c.scroll(
                self.episodes.collection.name,
                scroll_filter=NOT_LOOKED_AT,
                limit=max_items,
                with_payload=True,
            ),
        )
        if len(records) >= max_items:
            self.waiting = True
        if not records:
            return 0
        messages = await self._messages(records)
        verdicts = {eid: needs_second(text) for eid, text in messages.items()}
        routed: list[models.Record] = []
        others: list[models.Record] = []
        for r in records:
            payload = r.payload or {}
            keyword_only = payload.get("role") == "assistant"
            eid = str(payload.get("episode_id"))
            (others if keyword_only or not verdicts.get(eid) else routed).append(r)
        if routed:
            await self._store([(r.id, r.payload or {}) for r in routed])
        for value, marked in ((YES, routed), (NO, others)):
            ids = [r.id for r in marked]
            if ids:
                await self.episodes.call(
                    "set_payload",
                    lambda c, v=value, i=ids: c.set_payload(  # type: ignore[misc]
                        self.episodes.collection.name,
                        payload={ML: v},
                        points=i,
                        wait=True,
                    ),
                )
        self.routes.forget({str((r.payload or {}).get("owner")) for r in routed})
        return len(records)

    async def _messages(self, records: Sequence[models.Record]) -> dict[str, str]:
        """Episode id -> its message's text (the head's `content`), for `records`."""
        out: dict[str, str] = {}
        for r in records:
            payload = r.payload or {}
            if payload.get("seq") == 0:
                out[str(payload["episode_id"])] = str(payload.get("content") or "")
        missing = sorted(
            {str((r.payload or {}).get("episode_id")) for r in records} - set(out)
        )
        if missing:
            heads = await self.episodes.call(
                "retrieve",
                lambda c: c.retrieve(
                    self.episodes.collection.name,
                    ids=[window_point(eid, 0) for eid in missing],
                    with_payload=["episode_id", "content"],
                ),
            )
            for head in heads:
                payload = head.payload or {}
                out[str(payload.get("episode_id"))] = str(payload.get("content") or "")
        return out

    async def pending(self) -> int:
        if self.source is None:
            return 0
        await self._same_model()  # a changed model's windows wait again
        self.waiting = False  # before the read: a failing write meanwhile sets it again
        try:
            count = await self.episodes.count(NOT_LOOKED_AT)
        except BaseException:
            self.waiting = True  # unknown: the windows are looked at again next pass
            raise
        if count:
            self.waiting = True
        return count

    async def stored(self) -> int:
        if self.source is None:
            return 0
        return await self.episodes.count(models.Filter(must=[match(ML, YES)]))

    # -- reads --------------------------------------------------------------------------------
    async def routed(self, owner: str | None) -> bool:
        """Whether `owner`'s questions go to both models (cached for `ROUTE_TTL_S`)."""
        if self.source is None or owner is None:
            return False
        known = self.routes.get(owner)
        if known is not None:
            return known
        owned = match("owner", owner)
        try:
            second = await self.episodes.count(
                models.Filter(must=[owned, match(ML, YES)])
            )
        except Exception as exc:  # noqa: BLE001 - the first model's ranking stands alone
            second_failed("route", exc)
            return False
        routed = owner_routed(second)
        self.routes.put(owner, routed)
        return routed

    async def nearest(
        self, query: str, flt: models.Filter, limit: int
    ) -> list[models.ScoredPoint]:
        """The question's nearest second points that `flt` keeps, by the second model."""
        vector = await self.embed_query(query)
        return [] if vector is None else await self.search(vector, flt, limit)

    async def embed_query(self, query: str) -> np.ndarray[Any, Any] | None:
        """The question's second vector, or None when the model failed (the first ranks
        alone)."""
        assert self.source is not None
        return await second_query(self.source, query)

    async def search(
        self, vector: np.ndarray[Any, Any], flt: models.Filter, limit: int
    ) -> list[models.ScoredPoint]:
        """The second points nearest `vector` that `flt` keeps ([] when the search fails)."""
        try:
            await self._same_model()
            return await self.points.nearest(
                "query_second", vector.astype(float).tolist(), flt, limit
            )
        except Exception as exc:  # noqa: BLE001 - the first model's ranking stands alone
            second_failed("search", exc)
            return []

    # -- deletes ------------------------------------------------------------------------------
    async def delete_where(self, flt: models.Filter, owners: set[str] | None) -> None:
        """Delete the second points `flt` matches: the same filter as their windows'."""
        self.routes.forget(owners)
        if not self._exists:
            # Asked again until it exists, never remembered as missing: a replica with the
            # route on may create it at any time, and an erase must reach its copies.
            self._exists = await self.points.transport.call(
                "collection_exists",
                lambda c: c.collection_exists(self.name),
            )
            if not self._exists:
                return
        await self.points.delete_where("delete_second", flt, strong=False)


def merged(
    first: list[models.ScoredPoint],
    scores: dict[str, float],
    second: list[models.ScoredPoint],
    k: int,
    query: str,
) -> list[models.ScoredPoint]:
    """Both models' nearest windows for `query` as one ranking, best first, `k` long
    (`best_of`), the scores by point id in `scores` (updated). A window both found is the
    first's point."""
    points = {str(p.id): p for p in second} | {str(p.id): p for p in first}
    ranked = best_of(
        scores.items(), [(str(p.id), p.score) for p in second], k, map_for(query)
    )
    scores.update(ranked)
    return [points[ref] for ref, _ in ranked]


def second_failed(op: str, exc: BaseException) -> None:
    log.warning(
        "episodes.second_vectors_failed",
        extra={"fields": {"op": op, "error": f"{type(exc).__name__}: {exc}"}},
    )
