"""The episode windows' vectors, cached per owner for the vector arm (`SqliteEpisodeStore`).

An owner's windows are read from `episode_chunks.vec` (float16 blobs) on their first query
and kept as a row-normalised float32 matrix, with `SignCodes` once there are many
(`sign_codes.EXACT_ROWS`): a search rescores a binary first pass exactly instead of reading
the whole matrix. Memory: 1,536 bytes a 384-d window, 96 more for the codes, 8 for the id,
plus up to a quarter of spare capacity; LRU over owners bounded by `max_bytes`, an owner
bigger than the budget is not cached (its queries read the file each time).

Windows just embedded join the cached entry in place (a chat embeds one turn's windows at a
time; reloading every window after each turn put that reload on the next request). An entry
is a snapshot: the first `n` rows of buffers that appends only extend, so a search that holds
one reads it without a lock while the worker appends. Every other write drops the owners it
touched; a generation counter per owner keeps a load that raced a write from being cached.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.sign_codes import EXACT_ROWS, SignCodes, top_k

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class OwnerWindows:
    signature: str
    ids: I64
    """Chunk rowids; capacity long, the first `n` live."""
    rows: F32
    codes: SignCodes | None
    n: int
    top_id: int
    """The largest live rowid (-1 when none): a window appended at or below it reuses the
    rowid of one deleted without an invalidation (the per-owner cap), whose old vector the
    entry may still hold."""

    @property
    def nbytes(self) -> int:
        codes = self.codes.nbytes if self.codes is not None else 0
        return int(self.ids.nbytes + self.rows.nbytes) + codes

    @classmethod
    def of(cls, signature: str, ids: I64, rows: F32) -> OwnerWindows:
        codes = SignCodes.of(rows) if len(rows) >= EXACT_ROWS else None
        return cls(signature, ids, rows, codes, len(ids), _top_id(ids, -1))

    def top(self, query: F32, k: int) -> list[tuple[int, float]]:
        """The `k` best (chunk rowid, cosine), best first."""
        picked, scores = top_k(self.rows, self.n, query, k, self.codes)
        return list(zip(self.ids[picked].tolist(), scores.tolist(), strict=True))

    def extended(self, ids: I64, rows: F32) -> OwnerWindows:
        """This entry with `rows` after its own; the buffers grow by a quarter when full."""
        n, m = self.n, len(ids)
        ids_buf, rows_buf = self.ids, self.rows
        if n + m > len(ids_buf):
            capacity = max(n + m, n + n // 4, 64)
            ids_buf = np.empty(capacity, dtype=np.int64)
            ids_buf[:n] = self.ids[:n]
            rows_buf = np.empty((capacity, self.rows.shape[1]), dtype=np.float32)
            rows_buf[:n] = self.rows[:n]
        ids_buf[n : n + m] = ids
        rows_buf[n : n + m] = rows
        codes = self.codes
        if codes is not None:
            codes.set(n, rows)
        elif n + m >= EXACT_ROWS:
            codes = SignCodes.of(rows_buf[: n + m], capacity=len(ids_buf))
        return OwnerWindows(
            self.signature, ids_buf, rows_buf, codes, n + m, _top_id(ids, self.top_id)
        )

    def overwritten(self, ids: I64, rows: F32) -> OwnerWindows:
        """This entry with the rows of `ids` it holds replaced and the others appended.
        Writes in place: only for an entry no search can see yet (a load being caught up)."""
        live = self.ids[: self.n]
        present = np.isin(ids, live)
        if present.any():
            replacing = dict(zip(ids[present].tolist(), rows[present], strict=True))
            for at in np.flatnonzero(np.isin(live, ids[present])).tolist():
                self.rows[at] = replacing[int(live[at])]
                if self.codes is not None:
                    self.codes.set(at, self.rows[at : at + 1])
        new = ~present
        return self.extended(ids[new], rows[new]) if new.any() else self


def _top_id(ids: I64, top: int) -> int:
    return max(top, int(ids.max())) if len(ids) else top


class WindowCache:
    """Per-owner `OwnerWindows`, LRU by bytes; thread-safe (loads run in reader threads)."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, OwnerWindows] = OrderedDict()
        self._generation: dict[str, int] = {}
        self._bytes = 0
        self._loading: set[str] = set()
        self._since_load: dict[str, list[tuple[int, str, I64, F32]] | None] = {}
        """Per owner being loaded, the appends made meanwhile (generation, signature, ids,
        rows), or None once another write made them not enough: `put` adds them to the
        rows read. Refused instead, an owner whose turns kept coming (one every ~20 ms at
        c=1) was never cached once its load took longer than that, and every query of it
        read all its windows again."""

    def get(self, owner: str, signature: str) -> tuple[OwnerWindows | None, int]:
        with self._lock:
            entry = self._entries.get(owner)
            generation = self._generation.get(owner, 0)
            if entry is not None and entry.signature == signature:
                self._entries.move_to_end(owner)
                return entry, generation
            return None, generation

    def begin_load(self, owner: str) -> int | None:
        """The generation to `put` `owner`'s rows at when the caller should load them (then
        `end_load`); None while another load of theirs runs. A big owner's load takes
        seconds; every request meanwhile starting its own kept the readers busy with copies
        of the same rows. The generation is read here, where appends start being kept for
        the load: one read before (`get`) missed an append made between the two, and the
        load was refused."""
        with self._lock:
            if owner in self._loading:
                return None
            self._loading.add(owner)
            self._since_load[owner] = []
            return self._generation.get(owner, 0)

    def end_load(self, owner: str) -> None:
        with self._lock:
            self._loading.discard(owner)
            self._since_load.pop(owner, None)

    def put(self, owner: str, entry: OwnerWindows, generation: int) -> None:
        with self._lock:
            if self._generation.get(owner, 0) != generation:
                caught_up = self._caught_up(owner, entry, generation)
                if caught_up is None:
                    return  # a write other than appends came in while this was read
                entry = caught_up
            if entry.nbytes > self.max_bytes:
                return
            self._set(owner, entry)

    def append(self, owner: str, signature: str, ids: I64, rows: F32) -> None:
        """Windows just embedded (unit rows) join the owner's entry. A load under way is
        dropped (generation), since it may not hold them. A rowid not above the entry's
        drops the entry: it is reused, and the entry holds the deleted window's vector."""
        with self._lock:
            self._generation[owner] = self._generation.get(owner, 0) + 1
            appended = self._since_load.get(owner)
            if appended is not None:
                appended.append((self._generation[owner], signature, ids, rows))
            entry = self._entries.get(owner)
            if (
                entry is None
                or entry.signature != signature
                or not entry.n
                or (len(ids) and int(ids.min()) <= entry.top_id)
            ):
                self._drop(owner)
                return
            self._set(owner, entry.extended(ids, rows))

    def loaded(
        self, owner: str, signature: str, read: Callable[[], tuple[I64, F32]]
    ) -> OwnerWindows | None:
        """The owner's entry, `read` from the file on first use (None while another load of
        theirs runs)."""
        entry, _ = self.get(owner, signature)
        if entry is not None:
            return entry
        generation = self.begin_load(owner)
        if generation is None:
            return None
        try:
            ids, rows = read()
            entry = OwnerWindows.of(signature, ids, rows)
            self.put(owner, entry, generation)
        finally:
            self.end_load(owner)
        return entry

    def append_stored(
        self,
        owners: Sequence[str],
        rowids: Sequence[int],
        matrix: npt.NDArray[np.floating[Any]],
        signature: str,
    ) -> None:
        """Windows just embedded and stored (`owners[i]`'s window `rowids[i]`) join their
        owners' entries as a reload would read them: the stored float16 values, as float32.
        In a thread: an owner passing `EXACT_ROWS` has their codes computed once (~0.1 s)."""
        stored = np.asarray(matrix, dtype=np.float16).astype(np.float32)
        for owner in set(owners):
            picked = [i for i, o in enumerate(owners) if o == owner]
            self.append(
                owner,
                signature,
                np.asarray([rowids[i] for i in picked], dtype=np.int64),
                stored[picked],
            )

    def invalidate(self, owners: set[str] | None) -> None:
        with self._lock:
            targets = (
                # Owners loading for the first time have no generation yet: theirs too.
                list(self._entries) + list(self._generation) + list(self._loading)
                if owners is None
                else owners
            )
            for owner in set(targets):
                self._drop(owner)
                self._generation[owner] = self._generation.get(owner, 0) + 1
                if owner in self._since_load:
                    self._since_load[owner] = None

    def _caught_up(
        self, owner: str, entry: OwnerWindows, generation: int
    ) -> OwnerWindows | None:
        """`entry` (read at `generation`) with the windows appended since, or None when
        something else changed the owner meanwhile."""
        appended = self._since_load.get(owner)
        if appended is None:
            return None
        later = [a for a in appended if a[0] > generation]
        if len(later) != self._generation.get(owner, 0) - generation:
            return None
        for _, signature, ids, rows in later:
            if signature != entry.signature:
                return None
            # A window committed just before the read began is in the rows already (the
            # same vector); a rowid reused since the read holds another window's.
            entry = entry.overwritten(ids, rows)
        return entry

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "owners": len(self._entries),
                "windows": sum(e.n for e in self._entries.values()),
                "bytes": self._bytes,
                "max_bytes": self.max_bytes,
            }

    # -- lock held ------------------------------------------------------------------------
    def _set(self, owner: str, entry: OwnerWindows) -> None:
        self._drop(owner)
        self._entries[owner] = entry
        self._bytes += entry.nbytes
        while self._bytes > self.max_bytes and self._entries:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.nbytes

    def _drop(self, owner: str) -> None:
        entry = self._entries.pop(owner, None)
        if entry is not None:
            self._bytes -= entry.nbytes


class ModelCheck:
    """Once a model signature: the stored vectors of another model (a change of
    `embedding.source`, a new multilingual model) are forgotten, so their windows wait for
    a new vector, and the cache over them emptied. Asked before every count of the windows
    waiting, not only before embedding them: the background asks the count first and stops
    at 0, so a change on a file whose windows were all embedded was never seen."""

    def __init__(
        self,
        db: Database,
        cache: WindowCache,
        forget_other: Callable[[Any, str], int],
    ) -> None:
        self.db = db
        self.cache = cache
        self.forget_other = forget_other
        """Clears the vectors of every other signature; how many windows it cleared."""
        self.checked: str | None = None

    async def same_model(self, signature: str) -> None:
        if self.checked == signature:
            return
        changed = await self.db.write(lambda conn: self.forget_other(conn, signature))
        if changed:
            self.cache.invalidate(None)
        self.checked = signature
