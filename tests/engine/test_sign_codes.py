"""The binary first pass of the cached vector searches (`engine/sqlite/sign_codes.py`) and the
episode window cache that uses it (`engine/sqlite/episode_vector_cache.py`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from memtap.engine.sqlite import sign_codes
from memtap.engine.sqlite.episode_vector_cache import OwnerWindows, WindowCache
from memtap.engine.sqlite.sign_codes import EXACT_ROWS, SignCodes, encode, top_k


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def clustered(n: int, dim: int = 384, seed: int = 0) -> np.ndarray:
    """Rows around a few hundred centres, like embeddings of many short texts on few topics."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((300, dim))
    rows = centres[rng.integers(0, 300, n)] + 0.9 * rng.standard_normal((n, dim))
    return unit(rows)


def exact(rows: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    return list(np.argsort(-(rows @ query), kind="stable")[:k])


def test_codes_are_the_same_whatever_way_rows_arrive() -> None:
    rows = clustered(300)
    whole = SignCodes.of(rows)
    pieces = SignCodes(384, 1)
    for start in range(0, 300, 70):
        pieces.set(start, rows[start : start + 70])
    probe = rows[5]
    assert np.array_equal(
        np.sort(whole.nearest(probe, 300, 40)), np.sort(pieces.nearest(probe, 300, 40))
    )
    assert encode(rows).shape == (300, sign_codes.words_for(384))
    # Deterministic across processes: the projection is seeded by the width alone.
    assert np.array_equal(encode(rows[:3]), encode(rows[:3].copy()))


def test_nearest_keeps_at_least_the_count_asked_and_the_row_itself() -> None:
    rows = clustered(5000)
    codes = SignCodes.of(rows)
    picked = codes.nearest(rows[1234], 5000, 100)
    assert len(picked) >= 100
    assert 1234 in picked
    assert len(codes.nearest(rows[0], 50, 100)) == 50  # fewer rows than asked: all


def test_small_sets_are_searched_exactly() -> None:
    rows = clustered(2000)
    query = unit(rows[7] + rows[9])
    picked, scores = top_k(rows, 2000, query, 10, SignCodes.of(rows))
    assert list(picked) == exact(rows, query, 10)
    assert np.allclose(scores, rows[picked] @ query)


@pytest.mark.slow
def test_large_sets_find_the_exact_top_with_exact_scores() -> None:
    n = EXACT_ROWS * 3
    rows = clustered(n, seed=1)
    codes = SignCodes.of(rows)
    rng = np.random.default_rng(2)
    found = wanted = 0
    for probe in rng.integers(0, n, 40):
        query = unit(rows[probe] + 0.5 * unit(rng.standard_normal(384)))
        picked, scores = top_k(rows, n, query, 10, codes)
        assert len(picked) == 10
        assert np.allclose(scores, rows[picked] @ query, atol=1e-5)  # rescored exactly
        assert list(scores) == sorted(scores, reverse=True)
        truth = exact(rows, query, 10)
        found += len(set(picked.tolist()) & set(truth))
        wanted += 10
        assert picked[0] == truth[0]
    assert found / wanted >= 0.9


def test_rows_past_n_are_never_returned() -> None:
    rows = clustered(EXACT_ROWS + 500)
    codes = SignCodes.of(rows)
    n = EXACT_ROWS + 100
    picked, _ = top_k(rows, n, rows[-1], 50, codes)  # the query's own row is past n
    assert picked.max() < n


def test_an_appended_entry_leaves_the_snapshot_it_came_from_alone() -> None:
    rows = clustered(EXACT_ROWS - 10)
    ids = np.arange(len(rows), dtype=np.int64) + 1000
    first = OwnerWindows.of("sig", ids, rows)
    assert first.codes is None  # exact search below EXACT_ROWS
    more = clustered(40, seed=5)
    second = first.extended(np.arange(40, dtype=np.int64) + 9_000_000, more)
    assert first.n == len(rows) and second.n == len(rows) + 40
    assert second.codes is not None  # crossing EXACT_ROWS builds the codes once
    assert first.top(more[3], 1)[0][0] != 9_000_003  # the old snapshot cannot see it
    assert second.top(more[3], 1)[0] == (9_000_003, pytest.approx(1.0, abs=1e-5))
    third = second.extended(np.array([7], dtype=np.int64), more[:1] * -1)
    assert third.top(-more[0], 1)[0][0] == 7  # codes follow appends too
    assert second.top(-more[0], 1)[0][0] != 7


def test_window_cache_counts_bytes_and_evicts_oldest() -> None:
    rows = clustered(100)
    entry = OwnerWindows.of("sig", np.arange(100, dtype=np.int64), rows)
    cache = WindowCache(max_bytes=int(entry.nbytes * 2.5))
    for owner in ("a", "b", "c"):
        _, generation = cache.get(owner, "sig")
        cache.put(owner, entry, generation)
    assert cache.stats()["owners"] == 2 and cache.get("a", "sig")[0] is None
    assert cache.stats()["bytes"] == 2 * entry.nbytes
    cache.append("b", "sig", np.array([500], dtype=np.int64), rows[:1])
    grown = cache.get("b", "sig")[0]
    assert grown is not None and grown.n == 101
    assert cache.stats()["bytes"] == entry.nbytes + grown.nbytes
    cache.invalidate({"b"})
    assert cache.get("b", "sig")[0] is None
    assert cache.stats()["bytes"] == entry.nbytes


def test_a_load_not_begun_that_raced_an_append_is_not_kept() -> None:
    rows = clustered(10)
    cache = WindowCache()
    _, generation = cache.get("a", "sig")
    cache.append("a", "sig", np.array([1], dtype=np.int64), rows[:1])
    cache.put(
        "a", OwnerWindows.of("sig", np.arange(10, dtype=np.int64), rows), generation
    )
    assert cache.get("a", "sig")[0] is None


def load_racing(
    cache: WindowCache,
    owner: str,
    read: OwnerWindows,
    *during: Callable[[], None],
) -> OwnerWindows | None:
    """`read` loaded for `owner` as a request loads it (begin_load, put, end_load), with
    the writes `during` made while it was read; what the cache keeps after."""
    generation = cache.begin_load(owner)
    assert generation is not None
    for write in during:
        write()
    cache.put(owner, read, generation)
    cache.end_load(owner)
    return cache.get(owner, read.signature)[0]


def ids_of(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_a_load_that_raced_appends_is_kept_with_them() -> None:
    # One turn every ~20 ms of an owner whose load takes longer: refused, it was never
    # cached and every query read all its windows again.
    rows = clustered(12)
    cache = WindowCache()
    read = OwnerWindows.of("sig", np.arange(10, dtype=np.int64), rows[:10])
    kept = load_racing(
        cache,
        "a",
        read,
        # window 9 was committed just before the read began: it is in `read` already
        lambda: cache.append("a", "sig", ids_of(9), rows[9:10]),
        lambda: cache.append("a", "sig", ids_of(10, 11), rows[10:12]),
    )
    assert kept is not None and kept.n == 12
    assert sorted(kept.ids[: kept.n].tolist()) == list(range(12))
    assert kept.top(rows[11], 1)[0][0] == 11
    # a write other than an append during the load (a delete) still refuses it
    refused = load_racing(
        cache,
        "b",
        read,
        lambda: cache.append("b", "sig", ids_of(20), rows[:1]),
        lambda: cache.invalidate({"b"}),
    )
    assert refused is None


def test_an_append_between_get_and_begin_load_does_not_refuse_the_load() -> None:
    rows = clustered(11)
    cache = WindowCache()
    assert cache.get("a", "sig")[0] is None  # the request sees no entry
    cache.append("a", "sig", np.array([10], dtype=np.int64), rows[10:11])  # committed
    read = OwnerWindows.of("sig", np.arange(11, dtype=np.int64), rows.copy())
    kept = load_racing(cache, "a", read)
    assert kept is not None and kept.n == 11


def test_a_rowid_reused_during_a_load_takes_the_new_windows_vector() -> None:
    # The per-owner cap deletes windows without a reset; without AUTOINCREMENT the next
    # window may get a deleted one's rowid. The load read the old window's vector.
    rows = clustered(6)
    cache = WindowCache()
    read = OwnerWindows.of("sig", np.arange(5, dtype=np.int64), rows[:5].copy())
    kept = load_racing(
        cache, "a", read, lambda: cache.append("a", "sig", ids_of(4), rows[5:6])
    )
    assert kept is not None and kept.n == 5
    assert kept.top(rows[5], 1)[0] == (4, pytest.approx(1.0, abs=1e-5))
    at = kept.ids[: kept.n].tolist().index(4)
    assert np.allclose(kept.rows[at], rows[5])  # the old window's vector is gone


def test_a_reused_rowid_appended_to_a_cached_entry_drops_it() -> None:
    rows = clustered(6)
    cache = WindowCache()
    load_racing(
        cache, "a", OwnerWindows.of("sig", np.arange(5, dtype=np.int64), rows[:5])
    )
    cache.append("a", "sig", np.array([5], dtype=np.int64), rows[5:6])
    grown = cache.get("a", "sig")[0]
    assert grown is not None and grown.n == 6 and grown.top_id == 5
    cache.append("a", "sig", np.array([3], dtype=np.int64), rows[:1])  # 3 reused
    assert cache.get("a", "sig")[0] is None  # the next query reloads the file


def test_a_caught_up_entry_with_codes_rescores_the_overwritten_row() -> None:
    rows = clustered(EXACT_ROWS + 5, seed=3)
    odd = unit(-rows[0])
    cache = WindowCache()
    ids = np.arange(len(rows), dtype=np.int64)
    read = OwnerWindows.of("sig", ids, rows.copy())
    assert read.codes is not None
    kept = load_racing(
        cache,
        "a",
        read,
        lambda: cache.append("a", "sig", ids_of(7), odd.reshape(1, -1)),
    )
    assert kept is not None and kept.top(odd, 1)[0] == (7, pytest.approx(1.0, abs=1e-5))


def test_fact_cache_keeps_codes_through_upserts_and_deletes() -> None:
    from memtap.engine.sqlite.vector_cache import VectorCache

    n = EXACT_ROWS + 200
    rows = clustered(n, seed=7)
    ids = [f"m{i}" for i in range(n)]
    cache = VectorCache()
    cache.observe(0)
    assert cache.put("o", ids, rows.copy(), 0)
    probe = rows[10]
    assert cache.top("o", probe, 1)[0][0] == "m10"
    # Delete moves the last row into the hole: its codes must move with it.
    cache.begin_write()
    cache.apply(1, deletes=["m10"])
    cache.end_write(True)
    assert cache.top("o", rows[n - 1], 1)[0][0] == f"m{n - 1}"
    assert "m10" not in [mid for mid, _ in cache.top("o", probe, 20)]
    # An upsert writes new codes: a row unlike any other is found at once.
    odd = unit(-rows[3])
    cache.begin_write()
    cache.apply(2, upserts=[("new", "o", odd)])
    cache.end_write(True)
    best = cache.top("o", odd, 1)[0]
    assert best[0] == "new" and best[1] == pytest.approx(1.0, abs=1e-5)
    assert cache.stats().bytes > rows.nbytes  # the codes are counted


def test_one_load_per_owner_at_a_time() -> None:
    cache = WindowCache()
    assert cache.begin_load("a") == 0  # generation 0: is not None, not truthiness
    assert (
        cache.begin_load("a") is None
    )  # a second request meanwhile does not load again
    assert cache.begin_load("b") is not None
    cache.end_load("a")
    assert cache.begin_load("a") is not None


def test_invalidating_everything_reaches_an_owner_loading_for_the_first_time() -> None:
    rows = clustered(4)
    cache = WindowCache()
    read = OwnerWindows.of("sig", np.arange(4, dtype=np.int64), rows)
    # the file was replaced while the old one was read
    assert load_racing(cache, "new", read, lambda: cache.invalidate(None)) is None
