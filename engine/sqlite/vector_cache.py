"""Per-owner float32 matrices that serve the sqlite-vec tier's KNN from memory.

Why: the `sqlite-vec` wheel from PyPI is built without SIMD, so a KNN inside one owner's
`vec0` partition costs ~10 ms at 10k rows and ~100 ms at 100k. The same exact cosine as one
mat-vec over a cached, row-normalised float32 matrix takes ~0.2-0.9 ms at 10k and ~8 ms at
100k. `vec0` stays the durable store; this cache is only a faster way to read it.

Coherence:
- Lazy: an owner's rows are loaded from `vec0` on the first query for that owner.
- The tier is the only writer of vectors in a process; after each of its committed writes it
  patches the cached owners (`apply_upserts`, `apply_deletes`, `drop_owner`, `clear`).
- Every vector write also bumps `memory_vector_meta.version` in the same transaction. Each
  query reads that counter first (`observe`): a value newer than the cache's (beyond the
  tier's own writes in flight, `begin_write`/`end_write`, whose patches are on their way)
  means a write this process did not patch (another process on the same file), so
  everything cached is dropped and reloaded. A patch that does not follow the cache's
  version by exactly one, or a write that failed or was cancelled, clears it the same way.
- Patches are idempotent (upsert / delete by memory id), so a load that raced a write and
  already saw it is still right after the patch.

Memory: LRU over owners, bounded by bytes (`max_bytes`); an owner larger than the whole
budget is not cached and its queries go to `vec0` as before. Owners loaded with many rows
(`sign_codes.EXACT_ROWS`) also keep 96 bytes a row of first-pass bits: their queries rescore
a binary first pass exactly instead of reading the whole matrix (`sign_codes`).

Thread safety: queries run in reader threads, patches on the event loop. One lock guards
everything, including the mat-vec (a patch waits at most one search: ~0.2 ms at 10k rows).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memtap.engine.sqlite.sign_codes import EXACT_ROWS, SignCodes, top_k

F32 = npt.NDArray[np.float32]

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
ID_OVERHEAD_BYTES = 120
"""Rough cost of one id in the list and the index dict (str object + dict slot)."""
RECENT_PATCH_BYTES = 8 * 1024 * 1024
"""Recent patches kept for catching loads up (~4,700 rows at 384 dims, ~1,300 at 1,536),
outside `max_bytes`. A patch bigger than this alone is not kept: loads read before it are
refused, as before the catch-up."""
_MIN_CAPACITY = 64


def unit_rows(matrix: F32) -> F32:
    """Rows scaled to length 1 in place (cosine = dot product); zero rows stay zero."""
    # einsum: no matrix-sized temporary (np.linalg.norm squares a full copy first, which
    # stayed in the reader thread's malloc arena as RSS).
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    norms[norms == 0] = 1.0
    matrix /= norms[:, None]
    return matrix


@dataclass(slots=True)
class _Owner:
    ids: list[str]
    index: dict[str, int]
    matrix: F32
    """capacity x dim; the first len(ids) rows are live."""
    codes: SignCodes | None = None
    """The rows' first-pass bits (`sign_codes`), for owners loaded with `EXACT_ROWS` rows or
    more; an owner that grows past it keeps exact search until it is reloaded."""

    @property
    def nbytes(self) -> int:
        codes = self.codes.nbytes if self.codes is not None else 0
        return int(self.matrix.nbytes) + codes + ID_OVERHEAD_BYTES * len(self.ids)

    def upsert(self, memory_id: str, row: F32) -> None:
        at = self.index.get(memory_id)
        if at is None:
            at = len(self.ids)
            if at == self.matrix.shape[0]:
                grown = np.empty(
                    (max(_MIN_CAPACITY, at + at // 4), self.matrix.shape[1]),
                    dtype=np.float32,
                )
                grown[:at] = self.matrix[:at]
                self.matrix = grown
            self.ids.append(memory_id)
            self.index[memory_id] = at
        self.matrix[at] = row
        if self.codes is not None:
            self.codes.set(at, row.reshape(1, -1))

    def delete(self, memory_id: str) -> bool:
        at = self.index.pop(memory_id, None)
        if at is None:
            return False
        last = len(self.ids) - 1
        if at != last:
            # Row order carries no meaning: move the last row into the hole.
            moved = self.ids[last]
            self.ids[at] = moved
            self.index[moved] = at
            self.matrix[at] = self.matrix[last]
            if self.codes is not None:
                self.codes.move(last, at)
        self.ids.pop()
        return True


@dataclass(frozen=True, slots=True)
class _Patch:
    """One committed vector write, kept for loads that read the rows just before it."""

    version: int
    upserts: tuple[tuple[str, str, F32], ...] = ()
    deletes: tuple[str, ...] = ()
    dropped_owner: str | None = None

    @property
    def nbytes(self) -> int:
        vectors = sum(int(v.nbytes) for _, _, v in self.upserts)
        return vectors + ID_OVERHEAD_BYTES * (len(self.upserts) + len(self.deletes) + 1)

    def replay(self, owner: str, entry: _Owner) -> bool:
        """Apply this write to `owner`'s freshly read rows; False when it erased them."""
        if self.dropped_owner == owner:
            return False
        for memory_id, row_owner, vector in self.upserts:
            if row_owner == owner:
                entry.upsert(memory_id, vector)
            else:  # an id lives in one partition only
                entry.delete(memory_id)
        for memory_id in self.deletes:
            entry.delete(memory_id)
        return True


@dataclass(frozen=True, slots=True)
class CacheStats:
    owners: int
    rows: int
    bytes: int
    max_bytes: int
    version: int
    hits: int
    loads: int
    evictions: int
    invalidations: int
    too_big: int

    def to_json(self) -> dict[str, int]:
        return {
            "owners": self.owners,
            "rows": self.rows,
            "bytes": self.bytes,
            "max_bytes": self.max_bytes,
            "version": self.version,
            "hits": self.hits,
            "loads": self.loads,
            "evictions": self.evictions,
            "invalidations": self.invalidations,
            "too_big": self.too_big,
        }


class VectorCache:
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._lock = threading.Lock()
        self._owners: OrderedDict[str, _Owner] = OrderedDict()
        self._bytes = 0
        self._version = -1
        """The `memory_vector_meta.version` the cached rows match; -1 = nothing known."""
        self._in_flight = 0
        """Own vector writes submitted whose patch has not been applied yet."""
        self._recent: deque[_Patch] = deque()
        """The last patches (at most `RECENT_PATCH_BYTES`), oldest first: an owner's rows
        read before them are brought up to date instead of thrown away. Without this, a
        load that takes longer than the gap between two writes of any owner (~10 ms for
        2,000 rows, ~1.3 s for 100k) was refused every time under a steady write stream,
        and every query of that owner paid sqlite-vec's scan and another load."""
        self._recent_bytes = 0
        self._hits = self._loads = self._evictions = 0
        self._invalidations = self._too_big = 0

    # -- queries (reader threads) ---------------------------------------------------------
    def observe(self, version: int) -> None:
        """Note the store's current version; anything newer than the cache drops it, except
        the versions of this process's own writes still on their way (`begin_write`): their
        patches follow, and until then the cache is a snapshot from just before them."""
        with self._lock:
            if version > self._version + self._in_flight:
                if self._owners:
                    self._invalidations += 1
                self._drop_all()
                self._version = version

    def top(self, owner: str, query: F32, k: int) -> list[tuple[str, float]] | None:
        """The `k` best (memory id, cosine) of `owner`, best first; None when not cached.
        `query` must be unit length."""
        with self._lock:
            entry = self._owners.get(owner)
            if entry is None:
                return None
            self._owners.move_to_end(owner)
            self._hits += 1
            return _top(entry, query, k)

    def holds(self, owner: str) -> bool:
        with self._lock:
            return owner in self._owners

    def put(self, owner: str, ids: list[str], matrix: F32, version: int) -> bool:
        """Keep `owner`'s rows read at `version` (unit rows; `matrix` may have spare rows
        past `len(ids)`). Not kept when the cache moved past `version` meanwhile (a patch
        may be missing from these rows) or when they alone exceed the budget."""
        # The codes are computed before the lock (~0.5 s at 100k rows): patches on the event
        # loop wait for the lock.
        codes = SignCodes.of(matrix[: len(ids)]) if len(ids) >= EXACT_ROWS else None
        entry = _Owner(ids, {mid: i for i, mid in enumerate(ids)}, matrix, codes)
        with self._lock:
            return self._keep(owner, entry, version)

    # -- patches (after the tier's own committed writes) ----------------------------------
    def apply(
        self,
        version: int,
        upserts: Sequence[tuple[str, str, F32]] = (),
        deletes: Iterable[str] = (),
    ) -> None:
        """Patch in one committed write that made `version`: `upserts` = (memory id, owner,
        vector) now stored, `deletes` = memory ids whose vector is gone."""
        with self._lock:
            if not self._follows(version):
                return
            unit = tuple(
                (
                    memory_id,
                    owner,
                    unit_rows(np.array(v, dtype=np.float32).reshape(1, -1))[0],
                )
                for memory_id, owner, v in upserts
            )
            patch = _Patch(version, unit, tuple(deletes))
            self._remember(patch)
            # The same write that catches a late load up patches every owner held.
            for name, entry in self._owners.items():
                self._bytes -= entry.nbytes
                patch.replay(name, entry)
                self._bytes += entry.nbytes
            self._evict()

    def begin_write(self) -> None:
        """Call before submitting a vector write; `end_write` after its patch (or failure)."""
        with self._lock:
            self._in_flight += 1

    def end_write(self, ok: bool) -> None:
        """`ok=False`: the write failed or its caller was cancelled, so whether it committed
        is unknown: everything is dropped and reloaded on demand."""
        with self._lock:
            self._in_flight = max(0, self._in_flight - 1)
            if not ok:
                if self._owners:
                    self._invalidations += 1
                self._drop_all()
                self._version = -1

    def drop_owner(self, version: int, owner: str) -> None:
        with self._lock:
            if not self._follows(version):
                return
            self._remember(_Patch(version, dropped_owner=owner))
            entry = self._owners.pop(owner, None)
            if entry is not None:
                self._bytes -= entry.nbytes

    def clear(self, version: int | None = None) -> None:
        """Drop everything (a signature reset); with `version`, the cache matches it after."""
        with self._lock:
            self._drop_all()
            self._version = -1 if version is None else version

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                owners=len(self._owners),
                rows=sum(len(e.ids) for e in self._owners.values()),
                bytes=self._bytes,
                max_bytes=self.max_bytes,
                version=self._version,
                hits=self._hits,
                loads=self._loads,
                evictions=self._evictions,
                invalidations=self._invalidations,
                too_big=self._too_big,
            )

    def cached_owners(self) -> list[str]:
        with self._lock:
            return list(self._owners)

    # -- internals (lock held) ------------------------------------------------------------
    def _keep(self, owner: str, entry: _Owner, version: int) -> bool:
        self._loads += 1
        if entry.nbytes > self.max_bytes:
            self._too_big += 1
            return False
        # Rows read at a version this process's in-flight writes made are fine: their
        # patches follow and are idempotent. Older rows lack patches already applied: the
        # recent ones are replayed onto them.
        if self._version < 0 or owner in self._owners:
            return False
        if version > self._version + self._in_flight:
            return False
        if version < self._version and not self._catch_up(owner, entry, version):
            return False
        if entry.nbytes > self.max_bytes:  # grown by the writes caught up
            self._too_big += 1
            return False
        self._owners[owner] = entry
        self._bytes += entry.nbytes
        self._evict()
        return True

    def _follows(self, version: int) -> bool:
        """Whether a patch for `version` can be applied; otherwise the cache is dropped."""
        if version == self._version + 1 and self._version >= 0:
            self._version = version
            return True
        if self._owners:
            self._invalidations += 1
        self._drop_all()
        self._version = max(self._version, version)
        return False

    def _drop_all(self) -> None:
        # What the cache knew is gone, and with it the certainty that the patches kept are
        # every write since some version.
        self._owners.clear()
        self._bytes = 0
        self._recent.clear()
        self._recent_bytes = 0

    def _remember(self, patch: _Patch) -> None:
        self._recent.append(patch)
        self._recent_bytes += patch.nbytes
        while self._recent_bytes > RECENT_PATCH_BYTES and self._recent:
            self._recent_bytes -= self._recent.popleft().nbytes

    def _catch_up(self, owner: str, entry: _Owner, version: int) -> bool:
        """Bring rows read at `version` (older than the cache) up to the cache's version
        with the patches since; False when one is missing or erased the owner."""
        patches = [p for p in self._recent if p.version > version]
        if len(patches) != self._version - version:
            return False
        return all(p.replay(owner, entry) for p in patches)

    def _evict(self) -> None:
        while self._bytes > self.max_bytes and self._owners:
            _, entry = self._owners.popitem(last=False)
            self._bytes -= entry.nbytes
            self._evictions += 1


def _top(entry: _Owner, query: F32, k: int) -> list[tuple[str, float]]:
    # einsum inside `top_k`, not `@`: BLAS gemv is multi-threaded, and next to
    # onnxruntime's threads on a busy 2-core machine it took 8 ms at 10k x 384 instead of
    # 0.6-0.9 ms single-threaded (and 27 ms instead of 9 ms at 100k).
    picked, scores = top_k(entry.matrix, len(entry.ids), query, k, entry.codes)
    ids = entry.ids
    return [
        (ids[i], float(s))
        for i, s in zip(picked.tolist(), scores.tolist(), strict=True)
    ]
