"""Concurrent embedding requests coalesced into batches (`engine/embeddings/coalesce.py`):
each caller gets exactly its rows, queries go strictly before writes, failures and give-ups stay
with their own run; and the packaged ONNX model gives the same vectors batched or alone."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from memtap.engine.embeddings.coalesce import WRITE_RUN_TEXTS, Coalescer
from memtap.engine.embeddings.onnx import open_onnx


class Model:
    """A deterministic stand-in for a model run (the coalescer is what is under test): one
    row per text, made from the text; the first run can be held until `release()`."""

    def __init__(self) -> None:
        self.runs: list[list[str]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.started = threading.Event()
        self.fail_on: str | None = None

    def hold_next(self) -> None:
        self.gate.clear()
        self.started.clear()

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.runs.append(list(texts))
        self.started.set()
        self.gate.wait(10)
        if self.fail_on is not None and self.fail_on in texts:
            raise RuntimeError(f"cannot embed {self.fail_on}")
        return np.array([vector(t) for t in texts], dtype=np.float32)


def vector(text: str) -> list[float]:
    return [float(len(text)), float(sum(map(ord, text)) % 997), 1.0]


async def started(model: Model) -> None:
    await asyncio.to_thread(model.started.wait, 10)


async def test_requests_arriving_during_a_run_share_the_next_one() -> None:
    model = Model()
    batches = Coalescer(model, max_texts=64)
    model.hold_next()
    first = asyncio.ensure_future(batches.embed(["the first query"], urgent=True))
    await started(model)
    queries = [
        asyncio.ensure_future(batches.embed([f"query {i}"], urgent=True))
        for i in range(5)
    ]
    bulk_texts = [f"memory number {i}" for i in range(10)]
    bulk = asyncio.ensure_future(batches.embed(bulk_texts))
    await asyncio.sleep(0.01)
    model.gate.set()
    assert (await first).tolist() == [vector("the first query")]
    for i, task in enumerate(queries):
        assert (await task).tolist() == [vector(f"query {i}")]  # exactly its own row
    assert (await bulk).tolist() == [vector(t) for t in bulk_texts]
    # The five queries shared the query lane's next run; the write went in pieces in its
    # own lane: a query never waits for a write's texts in its run.
    runs = model.runs[1:]
    assert [f"query {i}" for i in range(5)] in runs
    writes = [run for run in runs if run[0].startswith("memory")]
    assert [len(run) for run in writes] == [WRITE_RUN_TEXTS, 10 - WRITE_RUN_TEXTS]
    assert all(
        all(t.startswith("memory") for t in run)
        or all(t.startswith("query") for t in run)
        for run in runs
    )
    assert batches.stats.requests == 8 and batches.stats.largest_run == WRITE_RUN_TEXTS


async def test_a_one_text_write_waits_behind_queries() -> None:
    model = Model()
    batches = Coalescer(model, max_texts=64)
    model.hold_next()
    first = asyncio.ensure_future(batches.embed(["running"]))
    await started(model)
    write = asyncio.ensure_future(batches.embed(["an extracted fact"]))
    await asyncio.sleep(0.01)
    query = asyncio.ensure_future(batches.embed(["what do I drink?"], urgent=True))
    await asyncio.sleep(0.01)
    model.gate.set()
    await asyncio.gather(first, write, query)
    # Queued after the write, run before it, and alone.
    assert model.runs[1:] == [["what do I drink?"], ["an extracted fact"]]


async def test_queries_go_before_bulk_pieces() -> None:
    model = Model()
    batches = Coalescer(model, max_texts=8)
    model.hold_next()
    first = asyncio.ensure_future(batches.embed(["warm"]))
    await started(model)
    bulk_texts = [f"fact {i}" for i in range(18)]  # pieces of 8, 8 and 2
    bulk = asyncio.ensure_future(batches.embed(bulk_texts))
    await asyncio.sleep(0.01)
    query = asyncio.ensure_future(
        batches.embed(["which database do I use?"], urgent=True)
    )
    await asyncio.sleep(0.01)
    model.gate.set()
    await first
    assert (await query).tolist() == [vector("which database do I use?")]
    assert (await bulk).tolist() == [vector(t) for t in bulk_texts]
    # the query, queued after the bulk request, ran before any of its pieces
    assert model.runs[1][0] == "which database do I use?"
    assert max(len(run) for run in model.runs) <= 8
    assert [
        t for run in model.runs[1:] for t in run if t.startswith("fact")
    ] == bulk_texts


async def test_a_failed_run_fails_its_callers_only() -> None:
    model = Model()
    batches = Coalescer(model)
    model.fail_on = "poison"
    with pytest.raises(RuntimeError, match="cannot embed poison"):
        await batches.embed(["poison"])
    assert (await batches.embed(["fine"])).tolist() == [vector("fine")]


async def test_a_caller_that_gave_up_before_its_run_costs_nothing() -> None:
    model = Model()
    batches = Coalescer(model)
    model.hold_next()
    first = asyncio.ensure_future(batches.embed(["running"]))
    await started(model)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(batches.embed(["abandoned"]), 0.01)
    late = asyncio.ensure_future(batches.embed(["wanted"]))
    await asyncio.sleep(0.01)
    model.gate.set()
    await first
    assert (await late).tolist() == [vector("wanted")]
    assert model.runs == [["running"], ["wanted"]]


async def test_onnx_batched_equals_alone() -> None:
    embedder = await open_onnx()
    queries = [
        "which database do I like?",
        "my cat is named Biscuit",
        "tabs or spaces",
        "a much longer question about the deployment pipeline we set up last spring",
    ]
    alone = np.concatenate([embedder.embed_sync([q]) for q in queries])
    together = await asyncio.gather(*(embedder.embed([q]) for q in queries))
    assert np.allclose(np.concatenate(together), alone, atol=1e-4)
    assert embedder.batches.stats.runs < len(queries)  # they did share runs
    await embedder.close()


async def test_cancelled_batches_fail_their_callers_instead_of_hanging() -> None:
    model = Model()
    batches = Coalescer(model)
    model.hold_next()
    running = asyncio.ensure_future(batches.embed(["in the run"]))
    await started(model)
    queued = asyncio.ensure_future(batches.embed(["queued behind it"]))
    await asyncio.sleep(0.01)
    assert batches._drain is not None
    batches._drain.cancel()  # what a shutdown does to a task
    for task in (running, queued):
        with pytest.raises(RuntimeError, match="embedding run ended"):
            await asyncio.wait_for(task, 5)
    model.gate.set()
    assert (await batches.embed(["later"])).tolist() == [vector("later")]
