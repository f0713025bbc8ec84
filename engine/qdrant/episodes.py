"""`QdrantEpisodeStore`: episodes as points of their own collection (`<collection>_episodes`),
one point per sentence window, so several replicas share them like they share memories.

A point carries the window (`text`, `seq`) and the episode's fields; the episode's text
itself (`content`) is on its first window only (`seq` 0, the "head"), which also stands for
the episode in listings, counts, export, sweep and eviction. Point ids are derived from the
episode id (itself derived from owner, session, role and content), so a re-sent message
lands on the same points: dedupe by construction, in every replica. Keyword search is the
sparse arm (memtap's BM25 weights, Qdrant's idf), vector search the dense arm; windows are
embedded when they are written (the worker's path, batched) and, when that fails, later by
`embed_pending` (`vec_pending` marks them). The layout is `episode_points.py`; the windows
said in another language also have a second vector (the multilingual route,
`episode_second.py`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

from qdrant_client import AsyncQdrantClient, models

from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.multilingual import MultilingualSource
from memtap.engine.embeddings.projected import embed_query
from memtap.engine.episode_types import (
    MAX_EPISODE_CHARS,
    ChunkHit,
    Episode,
    EpisodeListQuery,
    EpisodePage,
    EpisodeWrite,
    KeywordWindows,
    NewEpisode,
    VectorWindows,
)
from memtap.engine.episodes.chunks import indexed_windows
from memtap.engine.fallbacks import NoVectors
from memtap.engine.memory_rules import Live
from memtap.engine.qdrant.collection import DENSE, Collection
from memtap.engine.qdrant.episode_points import (
    INDEXED,
    assistant_tails,
    head_conditions,
    live_filter,
    to_episode,
    visible,
    window_point,
    window_points,
)
from memtap.engine.qdrant.episode_second import SecondPoints, merged, second_failed
from memtap.engine.qdrant.filters import match, session_condition
from memtap.engine.qdrant.payload import iso_to_ts
from memtap.engine.qdrant.points import QdrantPoints, to_qdrant_sparse
from memtap.engine.qdrant.sparse import query_vector
from memtap.engine.qdrant.transport import QdrantTransport
from memtap.engine.retrieval.terms import MAX_TERMS, query_terms

log = logging.getLogger("memtap.episodes")

PAGE = 256


class QdrantEpisodeStore:
    name = "qdrant"

    def __init__(
        self,
        transport: QdrantTransport,
        collection: str,
        embedder: EmbeddingSource | None,
        *,
        owns_transport: bool = False,
        second: MultilingualSource | None = None,
    ) -> None:
        self.transport = transport
        self.collection = collection
        self.embedder = embedder
        self._owns_transport = owns_transport
        self._first_pass_done = False
        # Every call first creates, validates (a changed embedding size is a clear
        # mismatch, not failing writes) and indexes the collection, as for memory points.
        self._points = QdrantPoints(
            transport,
            Collection(
                transport,
                collection,
                embedder.dim if embedder is not None else None,
                embedder.signature if embedder is not None else None,
                indexed=(*INDEXED, ("content", "text")),
            ),
            embedder,
            metrics=None,  # only `call` and `count` are used: no fallback to count
        )
        self.second = SecondPoints.of(transport, self._points, embedder, second)
        """The multilingual route's points (`episode_second.py`)."""
        self._second_source = second

    # -- writes -------------------------------------------------------------------------------
    async def add(
        self, episodes: Sequence[NewEpisode], now: str, max_per_owner: int
    ) -> list[EpisodeWrite]:
        fresh: dict[str, NewEpisode] = {}
        order: list[str] = []
        for new in episodes:
            if not new.content[:MAX_EPISODE_CHARS].strip():
                continue
            order.append(new.id)
            fresh.setdefault(new.id, new)
        if not order:
            return []
        heads = [window_point(eid, 0) for eid in fresh]
        known = await self._points.call(
            "retrieve",
            lambda c: c.retrieve(
                self.collection, ids=heads, with_payload=["episode_id"]
            ),
        )
        existing = {str((r.payload or {}).get("episode_id")) for r in known}
        todo = [(eid, new) for eid, new in fresh.items() if eid not in existing]
        if todo:
            await self._write(todo, now)
            for owner in {new.owner for _, new in todo}:
                await self._evict(owner, max_per_owner)
        seen: set[str] = set()
        out = []
        for eid in order:
            out.append(EpisodeWrite(eid, eid not in existing and eid not in seen))
            seen.add(eid)
        return out

    async def _write(self, todo: list[tuple[str, NewEpisode]], now: str) -> None:
        rows: list[tuple[str, NewEpisode, int, str]] = []
        for eid, new in todo:
            content = new.content[:MAX_EPISODE_CHARS].strip()
            for seq, text in enumerate(indexed_windows(new.role, content)):
                rows.append((eid, new, seq, text))
        # An assistant's windows are found by their words only (`KEYWORD_ONLY`).
        embedded = [
            i for i, (_, new, _, _) in enumerate(rows) if new.role != "assistant"
        ]
        found = await self._embed([rows[i][3] for i in embedded]) if embedded else []
        dense = None if found is None else dict(zip(embedded, found, strict=True))
        points = window_points(
            rows, now, dense, embedded_later=self.embedder is not None
        )
        await self.second.write(points, [new.content for _, new, _, _ in rows])
        for start in range(0, len(points), PAGE):

            async def upsert(
                c: AsyncQdrantClient,
                batch: list[models.PointStruct] = points[start : start + PAGE],
            ) -> models.UpdateResult:
                return await c.upsert(self.collection, points=batch, wait=True)

            await self._points.call("upsert", upsert)
        # Counted again at their next question: they may be routed now.
        self.second.routes.forget({new.owner for _, new in todo})

    async def _embed(self, texts: list[str]) -> list[list[float]] | None:
        if self.embedder is None or not texts:
            return None
        try:
            return (await self.embedder.embed(texts)).astype(float).tolist()  # type: ignore[no-any-return]
        except EmbeddingError:
            return None  # vec_pending: embed_pending fills them

    async def _evict(self, owner: str, max_per_owner: int) -> None:
        heads = models.Filter(
            must=[
                match("owner", owner),
                models.FieldCondition(key="seq", match=models.MatchValue(value=0)),
            ]
        )
        extra = await self._points.count(heads) - max_per_owner
        if extra <= 0:
            return
        oldest = await self._scroll(heads, extra, order="asc")
        await self._delete_episodes(
            [str((r.payload or {})["episode_id"]) for r in oldest], {owner}
        )

    async def _delete_episodes(self, ids: list[str], owners: set[str]) -> None:
        if not ids:
            return
        flt = models.Filter(
            must=[
                models.FieldCondition(key="episode_id", match=models.MatchAny(any=ids))
            ]
        )
        await self._delete_where(flt, owners)

    async def _delete_where(self, flt: models.Filter, owners: set[str] | None) -> None:
        """The windows `flt` matches and their second points (the same payload fields)."""
        await self._points.delete_where("delete", flt, strong=False)
        await self.second.delete_where(flt, owners)

    async def _first_pass(self) -> None:
        """Once a process, before the background's first count: what a collection of
        before is brought in line with (an assistant message's windows past its opening;
        windows of another model). From `pending_vectors`, which the backfill asks first
        and stops at 0: from `embed_pending` alone it never ran on a store whose windows
        were all embedded when written. Retried until it succeeds."""
        if self._first_pass_done:
            return
        await self._points.delete_where("tails", assistant_tails(), strong=False)
        await self._same_model()
        self._first_pass_done = True

    async def embed_pending(self, max_items: int, *, load_second: bool = True) -> int:
        await self._first_pass()
        done = await self._embed_first(max_items)
        if self.second.on and self.second.waiting and done < max_items:
            source = self.second.source
            if not load_second and source is not None and not source.loaded:
                return done  # the background pass loads it, then embeds them
            try:
                done += await self.second.embed_pending(max_items - done)
            except Exception as exc:  # noqa: BLE001 - the first model's vectors stand alone
                self.second.waiting = True  # what it left is looked at again next pass
                second_failed("pending", exc)
        return done

    async def _same_model(self) -> None:
        """Windows embedded by another model (its signature, kept in the collection's
        metadata, changed: another `embedding.source`, the integer graph built or lost)
        are not comparable with a question's vector: they wait for a new one
        (`vec_pending`) and the first leg leaves them out meanwhile, as SQLite's
        `forget_other_signatures` does. A collection from before the metadata is stamped."""
        if self.embedder is None:
            return
        collection = self._points.collection
        stored, current = await collection.embedding(), self.embedder.signature
        if stored is not None and stored != current:
            log.info(
                "episodes.model_changed",
                extra={
                    "fields": {
                        "collection": self.collection,
                        "was": stored,
                        "now": current,
                    }
                },
            )
            await self._points.call(
                "mark_pending",
                lambda c: c.set_payload(
                    self.collection,
                    payload={"vec_pending": True},
                    points=models.FilterSelector(
                        filter=models.Filter(must_not=[match("role", "assistant")])
                    ),
                    wait=True,
                ),
            )
        if stored != current:
            await collection.stamp(current)

    async def _embed_first(self, max_items: int) -> int:
        if self.embedder is None:
            return 0
        flt = models.Filter(must=[match("vec_pending", True)])
        waiting = await self._scroll(flt, max_items)
        if not waiting:
            return 0
        matrix = await self.embedder.embed(
            [str((r.payload or {})["text"]) for r in waiting]
        )
        vectors = [
            models.PointVectors(
                id=r.id, vector={DENSE: matrix[i].astype(float).tolist()}
            )
            for i, r in enumerate(waiting)
        ]
        await self._points.call(
            "update_vectors",
            lambda c: c.update_vectors(self.collection, points=vectors, wait=True),
        )
        ids = [r.id for r in waiting]
        await self._points.call(
            "set_payload",
            lambda c: c.set_payload(
                self.collection, payload={"vec_pending": False}, points=ids, wait=True
            ),
        )
        return len(waiting)

    async def pending_vectors(self) -> int:
        await self._first_pass()
        if self.embedder is None:
            return 0
        first = await self._first_pending()
        busy = self.second.waiting or self.second.passes.running
        return first + (await self.second.pending() if busy else 0)

    async def _first_pending(self) -> int:
        return await self._points.count(
            models.Filter(must=[match("vec_pending", True)])
        )

    # -- reads ---------------------------------------------------------------------------------
    async def _hits(self, points: list[models.ScoredPoint]) -> list[ChunkHit]:
        if not points:
            return []
        ids = sorted({str((p.payload or {})["episode_id"]) for p in points})
        heads = await self._points.call(
            "retrieve",
            lambda c: c.retrieve(
                self.collection,
                ids=[window_point(i, 0) for i in ids],
                with_payload=["content"],
            ),
        )
        content = {
            str(r.id): str((r.payload or {}).get("content") or "") for r in heads
        }
        out = []
        for p in points:
            payload = p.payload or {}
            eid = str(payload["episode_id"])
            out.append(
                ChunkHit(
                    to_episode(payload, content.get(window_point(eid, 0), "")),
                    int(payload["seq"]),
                    str(payload["text"]),
                    float(p.score),
                    str(p.id),
                )
            )
        return out

    async def keyword(self, query: str, live: Live, limit: int) -> list[ChunkHit]:
        sparse = query_vector(query)
        if not len(sparse):
            return []
        found = await self._points.nearest(
            "query_sparse", to_qdrant_sparse(sparse), live_filter(live), limit
        )
        return await self._hits([p for p in found if p.score > 0])

    async def vector(
        self, query: str, live: Live, limit: int, depth: int = 0
    ) -> VectorWindows:
        if self.embedder is None:
            raise NoVectors("no embedding source")
        embedder, flt, k = self.embedder, live_filter(live), max(limit, depth)
        # A window waiting for a vector may hold one of another model (`_same_model`).
        first = live_filter(live, current_vectors=True)
        if not await self.second.routed(live.owner):
            points, scores = await self._first_leg(embedder, query, first, k)
        else:
            # Both models side by side, each ranking deeper than asked (a window the merge
            # keeps can rank low in one of them), a window at the better of its two scores.
            fetch = max(depth, limit * 2)
            (points, scores), second = await asyncio.gather(
                self._first_leg(embedder, query, first, fetch),
                self.second.nearest(query, flt, fetch),
            )
            points = merged(points, scores, second, k, query)
        hits = [replace(h, score=scores[str(h.ref)]) for h in await self._hits(points)]
        return VectorWindows(hits, [(h.ref, h.score) for h in hits])

    async def _first_leg(
        self, embedder: EmbeddingSource, query: str, flt: models.Filter, k: int
    ) -> tuple[list[models.ScoredPoint], dict[str, float]]:
        """The first model's nearest live windows and their scores (calibrated when the
        query was projected)."""
        embedded = await embed_query(embedder, query)
        dense = embedded.vector.astype(float).tolist()
        # Filtered by the server and read in the same call: every ranked window is a
        # live hit.
        points = await self._points.nearest("query_dense", dense, flt, k)
        return points, {
            str(p.id): embedded.calibrated(p.score) if embedded.projected else p.score
            for p in points
        }

    async def keyword_and_terms(
        self, query: str, live: Live, limit: int
    ) -> KeywordWindows:
        """Both at once: the owner's counts wait for the same round trip as the matches
        (and are dropped when nothing matched)."""
        if live.owner is None:
            return KeywordWindows(await self.keyword(query, live, limit))
        hits, (total, rows) = await asyncio.gather(
            self.keyword(query, live, limit), self.term_rows(live.owner, query)
        )
        return KeywordWindows(hits, total, rows) if hits else KeywordWindows(hits)

    async def term_rows(self, owner: str, query: str) -> tuple[int, dict[str, int]]:
        """Counted on the windows' full-text index (whole words, no stemming); the counts
        go out together (one round trip's wait, not one a word)."""
        owned = match("owner", owner)
        words = query_terms(query)[:MAX_TERMS]
        total, *counts = await asyncio.gather(
            self._points.count(models.Filter(must=[owned])),
            *(
                self._points.count(
                    models.Filter(
                        must=[
                            owned,
                            models.FieldCondition(
                                key="text", match=models.MatchText(text=word)
                            ),
                        ]
                    )
                )
                for word in words
            ),
        )
        return total, dict(zip(words, counts, strict=True))

    async def neighbours(
        self, episode_ids: Sequence[str], live: Live
    ) -> dict[str, tuple[Episode | None, Episode | None]]:
        """Two round trips whatever the count (it was three a snippet, one after another:
        48 for 16 snippets): the snippets' heads in one read, then the message just before
        and just after each in one batch of queries ordered by `said_at`. Qdrant orders by
        `said_at` alone: the engine dates an assistant message a millisecond away from the
        user message beside it, so one turn's episodes never tie."""
        heads = [h for h in await self._heads(episode_ids) if visible(h, live)]
        if not heads:
            return {}
        shared = live_filter(live).must
        alive = list(shared) if isinstance(shared, list) else []
        requests = []
        for head in heads:
            ts = iso_to_ts(head.said_at)
            for rng, direction in (
                (models.Range(lt=ts), models.Direction.DESC),
                (models.Range(gt=ts), models.Direction.ASC),
            ):
                must = [
                    *alive,
                    *head_conditions(head.owner),
                    session_condition(head.session),
                    models.FieldCondition(key="said_at_ts", range=rng),
                ]
                requests.append(
                    models.QueryRequest(
                        query=models.OrderByQuery(
                            order_by=models.OrderBy(
                                key="said_at_ts", direction=direction
                            )
                        ),
                        filter=models.Filter(must=must),
                        limit=1,
                        with_payload=True,
                    )
                )
        responses = await self._points.call(
            "neighbours",
            lambda c: c.query_batch_points(self.collection, requests=requests),
        )
        found = [
            to_episode(r.points[0].payload or {}) if r.points else None
            for r in responses
        ]
        return {
            head.id: (found[2 * i], found[2 * i + 1]) for i, head in enumerate(heads)
        }

    async def _heads(self, episode_ids: Sequence[str]) -> list[Episode]:
        """The episodes of `episode_ids` that exist, in that order (one read)."""
        ids = list(dict.fromkeys(episode_ids))
        if not ids:
            return []
        records = await self._points.call(
            "retrieve",
            lambda c: c.retrieve(
                self.collection,
                ids=[window_point(eid, 0) for eid in ids],
                with_payload=True,
            ),
        )
        by_id = {
            str((r.payload or {}).get("episode_id")): to_episode(r.payload or {})
            for r in records
        }
        return [by_id[eid] for eid in ids if eid in by_id]

    async def _scroll(
        self, flt: models.Filter, limit: int, order: str | None = None
    ) -> list[models.Record]:
        order_by = (
            models.OrderBy(
                key="said_at_ts",
                direction=models.Direction.ASC
                if order == "asc"
                else models.Direction.DESC,
            )
            if order
            else None
        )
        records, _ = await self._points.call(
            "scroll",
            lambda c: c.scroll(
                self.collection,
                scroll_filter=flt,
                limit=limit,
                order_by=order_by,
                with_payload=True,
            ),
        )
        return list(records)

    async def get(self, episode_id: str) -> Episode | None:
        found = await self._points.call(
            "retrieve",
            lambda c: c.retrieve(
                self.collection, ids=[window_point(episode_id, 0)], with_payload=True
            ),
        )
        return to_episode(found[0].payload or {}) if found else None

    async def list_page(self, query: EpisodeListQuery) -> EpisodePage:
        must = head_conditions(query.owner, query.session)
        if query.q:
            must.append(
                models.FieldCondition(
                    key="content", match=models.MatchText(text=query.q)
                )
            )
        flt = models.Filter(must=must)
        total = await self._points.count(flt)
        records = await self._scroll(flt, query.offset + query.limit, order="desc")
        items = [to_episode(r.payload or {}) for r in records[query.offset :]]
        # Qdrant orders by said_at only: newer id first among equal times, like SQLite's rowid.
        return EpisodePage(tuple(items), total)

    async def delete(self, episode_id: str) -> bool:
        head = await self.get(episode_id)
        if head is None:
            return False
        await self._delete_episodes([episode_id], {head.owner})
        return True

    async def erase_owner(self, owner: str) -> int:
        removed = await self._points.count(models.Filter(must=head_conditions(owner)))
        flt = models.Filter(must=[match("owner", owner)])
        await self._delete_where(flt, {owner})
        return removed

    async def sweep(self, cutoff: str, limit: int = 5000) -> int:
        old = models.FieldCondition(
            key="said_at_ts", range=models.Range(lt=iso_to_ts(cutoff))
        )
        removed = await self._points.count(
            models.Filter(must=[*head_conditions(), old])
        )
        if removed:
            await self._delete_where(models.Filter(must=[old]), None)
        return removed

    async def export_owner(self, owner: str) -> AsyncIterator[Episode]:
        flt = models.Filter(must=head_conditions(owner))
        offset: models.ExtendedPointId | None = None
        while True:

            async def page(
                c: AsyncQdrantClient, start: models.ExtendedPointId | None = offset
            ) -> tuple[list[models.Record], models.ExtendedPointId | None]:
                return await c.scroll(
                    self.collection,
                    scroll_filter=flt,
                    limit=PAGE,
                    offset=start,
                    with_payload=True,
                )

            records, offset = await self._points.call("scroll", page)
            for record in records:
                yield to_episode(record.payload or {})
            if offset is None:
                return

    async def counts(self) -> dict[str, int]:
        episodes = await self._points.count(models.Filter(must=head_conditions()))
        windows_ = await self._points.count(models.Filter(must=[]))
        return {
            "episodes": episodes,
            "windows": windows_,
            "pending_vectors": await self._first_pending(),
            **(
                {
                    "second_vectors": await self.second.stored(),
                    "second_pending": await self.second.pending(),
                }
                if self.second.on
                else {}
            ),
        }

    async def close(self) -> None:
        # The second model is ours (as for the SQLite store); the transport when we opened it.
        if self._second_source is not None:
            await self._second_source.close()
        if self._owns_transport:
            await self.transport.close()
