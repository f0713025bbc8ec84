"""Benchmark of the memory engine (not a test): retrieval latency and extraction throughput.

    .venv/bin/python scripts/bench_memory.py                      # 1k, 10k, 100k memories
    .venv/bin/python scripts/bench_memory.py --sizes 1000,10000 --queries 500 --json

Parts (each a function taking the parsed args and returning a dict of figures):
- `retrieval`: one owner holding N memories (plus other owners' noise), keyword strategy,
  through `Engine.retrieve` (the proxy's exact path): p50/p99 in milliseconds;
- `enqueue`: the outbox commit the proxy waits for at the end of a response: p50/p99;
- `extraction`: turns/s through the outbox worker (extract + store + delete, in batches);
- `proxy`: memory-on vs memory-off latency through a real memtap server, in one run;
- `cost` (`--parts cost`): issue 14's cost targets through `memtap serve` with the default
  install pinned to one core: added p50 at c=1, CPU per request on/off at c=8 (hybrid and
  keyword), memory requests per core.

Extension points: `--store` selects the record store (`sqlite` here; helper H adds
`qdrant`), `--semantic` adds the vector-tier figures of `scripts/bench_semantic.py` (hybrid
p50/p99 excluding and including the query embedding, KNN, RSS per source): register more
parts in `PARTS`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, EpisodesConfig, MemoryConfig, VectorStoreConfig
from memtap.engine.clock import now_iso
from memtap.engine.engine import Engine
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.sqlite import outbox
from memtap.engine.types import RetrievalRequest, Turn
from tests.support.engine_status import projection_building

OWNER = "0123456789abcdef01234567"
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ra",
    "te",
    "su",
    "no",
    "vi",
    "pe",
    "da",
    "zu",
    "go",
    "ba",
    "xi",
    "fo",
    "ne",
]


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def figures(samples_s: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples_s]
    return {
        "p50_ms": round(percentile(ms, 50), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }


async def open_bench_engine(data_dir: str, strategy: str = "keyword") -> Engine:
    holder = ConfigHolder(
        Config(
            data_dir=data_dir,
            memory=MemoryConfig(strategy=strategy),  # type: ignore[arg-type]
            vector_store=VectorStoreConfig(kind="none"),
        )
    )
    return await open_engine(holder, Metrics(), start_worker=False)


async def fill(engine: Engine, n: int, words: list[str], rng: random.Random) -> None:
    """Bulk-load n memories for OWNER (+10% for other owners) in big transactions."""
    now = now_iso()
    templates = [
        "Prefers {} for {}",
        "Decided to use {} with {}",
        "Usually {} before {}",
        "Likes {} and {}",
    ]

    def rows(
        count: int, owner_of: Callable[[int], str], offset: int
    ) -> list[tuple[Any, ...]]:
        out = []
        for i in range(count):
            a, b, c = rng.sample(words, 3)
            content = rng.choice(templates).format(f"{a} {b}", c)
            out.append(
                (
                    f"{offset + i:08d}-bench",
                    owner_of(i),
                    "factual",
                    f"bench:{offset + i}",
                    content,
                    "{}",
                    now,
                    now,
                )
            )
        return out

    batch = 5000
    others = max(1, n // 10)
    for start in range(0, n + others, batch):
        count = min(batch, n + others - start)
        data = rows(
            count,
            lambda i, s=start: OWNER if s + i < n else f"other{(s + i) % 50:02d}",
            start,
        )
        await engine.local.db.write(
            lambda c, d=data: c.executemany(
                "INSERT INTO memories(id, owner, type, key, content, metadata, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                d,
            )
        )


async def bench_retrieval(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(7)
    words = vocabulary(5000, rng)
    out: dict[str, Any] = {}
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            engine = await open_bench_engine(tmp)
            try:
                t0 = time.perf_counter()
                await fill(engine, size, words, rng)
                load_s = time.perf_counter() - t0
                queries = [
                    f"what do you know about {rng.choice(words)} and {rng.choice(words)}?"
                    for _ in range(args.queries)
                ]
                for q in queries[:20]:  # warm caches
                    await engine.retrieve(RetrievalRequest(owner=OWNER, query=q))
                samples, hits = [], 0
                for q in queries:
                    t = time.perf_counter()
                    result = await engine.retrieve(
                        RetrievalRequest(owner=OWNER, query=q, strategy="keyword")
                    )
                    samples.append(time.perf_counter() - t)
                    hits += len(result.hits)
                recent = []
                for _ in range(min(200, args.queries)):
                    t = time.perf_counter()
                    await engine.retrieve(
                        RetrievalRequest(owner=OWNER, query="", strategy="recent")
                    )
                    recent.append(time.perf_counter() - t)
                out[str(size)] = {
                    "keyword": figures(samples),
                    "recent": figures(recent),
                    "avg_hits": round(hits / len(queries), 2),
                    "load_s": round(load_s, 2),
                }
            finally:
                await engine.close()
        print(f"retrieval {size:>7}: {out[str(size)]}", file=sys.stderr)
    return out


async def bench_enqueue_and_extraction(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(11)
    words = vocabulary(2000, rng)
    with tempfile.TemporaryDirectory() as tmp:
        engine = await open_bench_engine(tmp)
        try:
            samples = []
            for i in range(args.turns):
                a, b = rng.sample(words, 2)
                turn = Turn(
                    f"req-{i}",
                    f"owner{i % 20:02d}",
                    None,
                    "openai-chat",
                    f"Hello there. I prefer {a} for {b}. I usually test {b} first. What next?",
                    "Sure, here is a long answer. " * 20,
                )
                t = time.perf_counter()
                await engine.enqueue_turn(turn)
                samples.append(time.perf_counter() - t)
            depth = await engine.local.db.read(outbox.depth)
            t0 = time.perf_counter()
            engine.worker.start()
            while await engine.local.db.read(outbox.depth):
                await asyncio.sleep(0.01)
            elapsed = time.perf_counter() - t0
            status = await engine.status()
        finally:
            await engine.close()
    result = {
        "enqueue": figures(samples),
        "extraction": {
            "turns": depth,
            "seconds": round(elapsed, 3),
            "turns_per_s": round(depth / elapsed, 1),
            "memories": status["counts"]["live"] + status["counts"]["superseded"],
        },
    }
    print(f"outbox: {result}", file=sys.stderr)
    return result


async def bench_proxy_overhead(args: argparse.Namespace) -> dict[str, Any]:
    """memory-on vs memory-off through a real memtap server (in-process, one event loop, with a
    local upstream), interleaved in one run; the owner holds `--proxy-memories` memories."""
    import hashlib

    import aiohttp

    from memtap.config.schema import UpstreamConfig
    from memtap.proxy.server import start_server
    from tests.support.standin import CannedChat, Standin

    key = "sk-bench-memory-overhead"
    owner = hashlib.sha256(key.encode()).hexdigest()[:24]
    rng = random.Random(5)
    words = vocabulary(5000, rng)
    reply = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "model": "bench",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Sure. " * 50},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 60},
        }
    ).encode()

    upstream = Standin(canned=CannedChat(reply), record=False)
    await upstream.start()
    with tempfile.TemporaryDirectory() as tmp:
        engine = await open_bench_engine(tmp)
        await fill(engine, args.proxy_memories, words, rng)
        await engine.local.db.write(
            lambda c: c.execute(
                "UPDATE memories SET owner = ? WHERE owner = ?", (owner, OWNER)
            )
        )
        await engine.close()
        config = Config(
            listen="127.0.0.1:0",
            data_dir=tmp,
            upstreams=(UpstreamConfig(name="bench", url=upstream.url),),
            memory=MemoryConfig(  # type: ignore[arg-type]
                strategy=args.proxy_strategy,
                episodes=EpisodesConfig(enabled=args.proxy_episodes == "on"),
            ),
            vector_store=VectorStoreConfig(kind="none"),
        )
        import logging

        logging.getLogger("memtap").setLevel(logging.WARNING)
        server = await start_server(
            ConfigHolder(config, str(Path(tmp) / "absent.yaml")),
            listen=("127.0.0.1", 0),
            watch_config=False,
        )
        samples: dict[str, list[float]] = {"on": [], "off": []}
        injected = 0
        try:
            async with aiohttp.ClientSession() as client:
                url = server.base_url + "/v1/chat/completions"
                for i in range(args.proxy_requests + 50):
                    mode = "on" if i % 2 else "off"
                    a, b = rng.sample(words, 2)
                    body = {
                        "model": "bench",
                        "messages": [
                            {
                                "role": "user",
                                "content": f"Tell me about {a} and {b}. I prefer {a} for {b}.",
                            }
                        ],
                    }
                    headers = {"Authorization": f"Bearer {key}"}
                    if mode == "off":
                        headers["X-Memtap-Memory"] = "off"
                    t = time.perf_counter()
                    async with client.post(url, json=body, headers=headers) as response:
                        await response.read()
                        injected += int(
                            response.headers.get("X-Memtap-Memories", "0") or 0
                        )
                    if i >= 50:  # warm-up excluded
                        samples[mode].append(time.perf_counter() - t)
            histogram = server.runtime.metrics.retrieval_duration
            retrieval_mean = sum(histogram._sums.values()) / max(
                1, sum(histogram.count(*k) for k in histogram._sums)
            )
        finally:
            await server.stop()
            await upstream.stop()
    on, off = figures(samples["on"]), figures(samples["off"])
    result = {
        "memories_per_owner": args.proxy_memories,
        "strategy": args.proxy_strategy,
        "episodes": args.proxy_episodes,
        "memory_on": on,
        "memory_off": off,
        "added_p50_ms": round(on["p50_ms"] - off["p50_ms"], 3),
        "retrieval_mean_ms": round(retrieval_mean, 3),
        "avg_injected": round(injected / max(1, len(samples["on"]) + 25), 2),
    }
    print(f"proxy: {result}", file=sys.stderr)
    return result


async def bench_cost(args: argparse.Namespace) -> dict[str, Any]:
    """Issue 14's cost targets, through `memtap serve` with the default install (embedding
    auto = packaged ONNX, sqlite-vec) pinned to one core (`taskset -c 0` when available),
    the load generator and the stand-in provider in this process (on the other core):

    - added p50 at c=1 (memory on minus memory off, interleaved requests);
    - CPU per request at c=8 (memtap's utime + stime over a closed loop), memory on / off,
      for each strategy in `--cost-strategies` (hybrid = the default, keyword);
    - memory requests per core = 1 / CPU per memory-on request.

    The owner holds `--proxy-memories` memories (imported through the admin API, waited
    for until every one has its vector); medians over `--cost-rounds` interleaved rounds.

    The load is the acceptance run's by default (issue 35): distinct everyday questions
    (`--cost-questions`), a chat's memory-on turns back to back at c=1 (`--cost-order`: each
    waits for the writes of the one before, read-your-own-writes), and a provider whose
    every reply differs (`--cost-replies`: with `memory.episodes.keep_assistant` a reply is
    an episode, its windows embedded). `--cost-questions template --cost-order alternate
    --cost-replies fixed` is the load of the figures before 2026-12-07."""
    import hashlib
    import shutil

    import aiohttp

    from tests.support.standin import CannedChat, Standin

    key = "sk-bench-memory-cost"
    owner = hashlib.sha256(key.encode()).hexdigest()[:24]
    rng = random.Random(5)
    words = vocabulary(5000, rng)
    templates = [
        "Prefers {} for {}",
        "Decided to use {} with {}",
        "Usually {} before {}",
        "Likes {} and {}",
    ]
    lines = []
    for _ in range(args.proxy_memories):
        a, b, c = rng.sample(words, 3)
        lines.append(
            json.dumps(
                {"owner": owner, "content": rng.choice(templates).format(f"{a} {b}", c)}
            )
        )
    reply = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "model": "bench",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Sure. " * 50},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 60},
        }
    ).encode()
    upstream: Standin | DistinctReplies = (
        Standin(canned=CannedChat(reply), record=False)
        if args.cost_replies == "fixed"
        else DistinctReplies()
    )
    await upstream.start()
    pin = (
        ["taskset", "-c", args.cost_cpu]
        if args.cost_cpu and shutil.which("taskset")
        else []
    )
    if pin:
        with contextlib.suppress(OSError):  # the load generator keeps off memtap's core
            others = set(os.sched_getaffinity(0)) - {
                int(c) for c in args.cost_cpu.split(",")
            }
            if others:
                os.sched_setaffinity(0, others)
    out: dict[str, Any] = {
        "memories_per_owner": args.proxy_memories,
        "pinned": " ".join(pin) or "no",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for number, strategy in enumerate(args.cost_strategies.split(",")):
            config = Path(tmp) / "memtap.yaml"
            config.write_text(
                f"listen: 127.0.0.1:0\ndata_dir: {tmp}/data\n"
                f"upstreams:\n  - name: bench\n    url: {upstream.url}\n"
                f"memory:\n  strategy: {strategy}\n"
                f"embedding:\n  source: {args.cost_embedding}\n"
                f"  onnx_integer_matmul: {str(args.cost_onnx_graph == 'integer').lower()}\n"
                f"  query_projection: {args.cost_query_projection}\n"
                f"log:\n  format: json\n  level: info\n  file: {tmp}/memtap.log\n"
            )
            memtap = str(Path(sys.executable).with_name("memtap"))
            proc = await asyncio.create_subprocess_exec(
                *pin,
                memtap,
                "serve",
                "-c",
                str(config),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
            try:
                assert proc.stdout is not None
                line = (await asyncio.wait_for(proc.stdout.readline(), 120)).decode()
                base = line.split()[-1]
                async with aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0)
                ) as client:
                    if number == 0:
                        async with client.post(
                            base + "/_memtap/api/import", data="\n".join(lines)
                        ) as r:
                            r.raise_for_status()
                    await wait_vectors(client, base)
                    args.cost_strategy_now = strategy
                    out[strategy] = await cost_rounds(
                        client, base, key, words, rng, proc.pid, args
                    )
            finally:
                proc.terminate()
                await proc.wait()
            if (
                args.cost_keep_data
            ):  # for profiling a retrieval offline on the same data
                shutil.copytree(
                    f"{tmp}/data",
                    f"{args.cost_keep_data}.{strategy}",
                    dirs_exist_ok=True,
                )
            print(f"cost {strategy}: {out[strategy]}", file=sys.stderr)
    await upstream.stop()
    return out


REPLY_SENTENCES = [
    "That's a good question, and there are a few things worth keeping in mind.",
    "First, start small and give yourself a week or two to see what actually works for you.",
    "Most people find it easier when it is tied to something they already do every day.",
    "If you can, write down what you tried and how it went: memory is a poor judge of progress.",
    "Cost matters too: the cheapest option is often good enough at the beginning.",
    "Avoid doing everything at once; pick the change with the biggest effect and stick with it.",
    "It also helps to ask someone who has done it before, since they know the common mistakes.",
    "Keep an eye on safety, and stop if anything feels wrong or painful.",
    "Timing matters: mornings tend to work better for routines, evenings for reflection.",
    "You can always adjust the plan later once you know more about what you need.",
    "A simple way to begin: set a date, prepare what you need the day before, keep it short.",
    "Finally, be patient with yourself; a few missed days do not undo the progress you made.",
]


class DistinctReplies:
    """A loopback chat provider whose every reply is different (~750 characters, 8
    sentences): with `memory.episodes.keep_assistant` each reply is an episode of its own,
    windows to embed included, as in real use (a fixed reply is one episode, stored once)."""

    def __init__(self) -> None:
        self.url = ""
        self._count = 0
        self._runner: Any = None

    async def _reply(self, request: Any) -> Any:
        from aiohttp import web

        await request.read()
        self._count += 1
        rng = random.Random(self._count)
        content = " ".join(rng.sample(REPLY_SENTENCES, 8)) + f" (note {self._count})"
        return web.json_response(
            {
                "id": "c",
                "object": "chat.completion",
                "model": "bench",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 160,
                    "total_tokens": 170,
                },
            }
        )

    async def start(self) -> None:
        from aiohttp import web

        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._reply)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]

    async def stop(self) -> None:
        await self._runner.cleanup()


async def wait_vectors(client: Any, base: str, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        async with client.get(base + "/_memtap/api/engine-status") as r:
            status = await r.json()
        if (
            status["vector"].get("needs_reindex", 0) == 0
            and status["outbox"]["depth"] == 0
            # a busy page's episode windows are left to the backfill: their vectors are
            # part of what the loop's requests cost, not the next loop's
            and not (status.get("episodes") or {}).get("pending_vectors", 0)
            and not projection_building(status)
        ):
            return
        await asyncio.sleep(0.5)


async def fallbacks(client: Any, base: str) -> dict[str, float]:
    """memtap_memory_fallbacks_total by cause, from the metrics endpoint."""
    from scripts.bench_load import fallback_counts

    async with client.get(base + "/_memtap/metrics") as r:
        return fallback_counts(await r.text())


async def cost_rounds(
    client: Any,
    base: str,
    key: str,
    words: list[str],
    rng: random.Random,
    pid: int,
    args: argparse.Namespace,
) -> dict[str, Any]:
    from scripts.bench_load import cpu_seconds
    from scripts.everyday_questions import everyday_questions

    url = base + "/v1/chat/completions"
    injected = 0
    questions = everyday_questions(seed=11)

    def message() -> str:
        if args.cost_questions == "everyday":
            return next(questions)
        a, b = rng.sample(words, 2)
        return f"Tell me about {a} and {b}. I prefer {a} for {b}."

    async def one(mode: str) -> float:
        nonlocal injected
        body = {
            "model": "bench",
            "messages": [{"role": "user", "content": message()}],
        }
        headers = {"Authorization": f"Bearer {key}"}
        if mode == "off":
            headers["X-Memtap-Memory"] = "off"
        t = time.perf_counter()
        async with client.post(url, json=body, headers=headers) as response:
            await response.read()
            if mode == "on":
                injected += int(response.headers.get("X-Memtap-Memories", "0") or 0)
        return time.perf_counter() - t

    for i in range(100):  # warm-up: connections, caches, the owner's vectors
        await one("on" if i % 2 else "off")
    latency: dict[str, list[float]] = {"on": [], "off": []}
    # CPU at c=1 by mode, counted over runs of one mode (the clock ticks are 10 ms): no
    # request is shed or cut by the limit here, so it is the whole work of one request.
    c1_cpu: dict[str, float] = {"on": 0.0, "off": 0.0}
    c1_count: dict[str, int] = {"on": 0, "off": 0}
    run_mode, run_cpu = "", cpu_seconds(pid)
    for i in range(args.proxy_requests):
        if args.cost_order == "alternate":
            mode = "on" if i % 2 else "off"
        else:  # a chat's turns back to back: each waits for the writes of the one before
            mode = "on" if (i // args.cost_block) % 2 == 0 else "off"
        if mode != run_mode:
            now_cpu = cpu_seconds(pid)
            if run_mode:
                c1_cpu[run_mode] += now_cpu - run_cpu
            run_mode, run_cpu = mode, now_cpu
        latency[mode].append(await one(mode))
        c1_count[mode] += 1
    c1_cpu[run_mode] += cpu_seconds(pid) - run_cpu
    cpu_us: dict[str, list[float]] = {"on": [], "off": []}
    shed: dict[str, float] = {}
    on_count = 0
    rps: dict[str, list[float]] = {"on": [], "off": []}
    for round_no in range(args.cost_rounds):
        for mode in ("off", "on"):
            count = 0
            deadline = time.perf_counter() + args.cost_duration

            async def worker(mode: str = mode, deadline: float = deadline) -> None:
                nonlocal count
                while time.perf_counter() < deadline:
                    await one(mode)
                    count += 1

            spy = None
            if args.cost_py_spy and mode == "on":
                py_spy = str(Path(sys.executable).with_name("py-spy"))
                spy = await asyncio.create_subprocess_exec(
                    py_spy,
                    "record",
                    "-p",
                    str(pid),
                    "-d",
                    str(max(1, int(args.cost_duration))),
                    "-r",
                    str(args.cost_py_spy_rate),
                    "--format",
                    "raw",
                    "--threads",
                    "--nonblocking",
                    "-o",
                    f"{args.cost_py_spy}.{args.cost_strategy_now}.{round_no}.txt",
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.DEVNULL,
                )
            shed_before = await fallbacks(client, base)
            before, started = cpu_seconds(pid), time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(8)))
            if spy is not None:
                await spy.wait()
            elapsed = time.perf_counter() - started
            # The vectors of what the loop's turns stated are written behind the requests:
            # their CPU is part of what a memory request costs.
            await wait_vectors(client, base)
            cpu = cpu_seconds(pid) - before
            cpu_us[mode].append(cpu / max(1, count) * 1e6)
            if (
                mode == "on"
            ):  # what memtap left out under the load (limit, shed, timeouts)
                for cause, n in (await fallbacks(client, base)).items():
                    shed[cause] = shed.get(cause, 0) + n - shed_before.get(cause, 0)
                on_count += count
            rps[mode].append(count / elapsed)
    on_p50 = statistics.median(latency["on"]) * 1000
    off_p50 = statistics.median(latency["off"]) * 1000
    cpu_on, cpu_off = statistics.median(cpu_us["on"]), statistics.median(cpu_us["off"])
    return {
        "c1_p50_ms": {"on": round(on_p50, 3), "off": round(off_p50, 3)},
        "added_p50_ms": round(on_p50 - off_p50, 3),
        "c1_cpu_us_per_request": {
            mode: round(c1_cpu[mode] / max(1, c1_count[mode]) * 1e6)
            for mode in ("on", "off")
        },
        "c8_cpu_us_per_request": {"on": round(cpu_on), "off": round(cpu_off)},
        "cpu_ratio_on_off": round(cpu_on / cpu_off, 2),
        "memory_requests_per_core_s": round(1e6 / cpu_on),
        "c8_req_per_s": {
            "on": round(statistics.median(rps["on"])),
            "off": round(statistics.median(rps["off"])),
        },
        "c8_fallbacks_per_request": {
            cause: round(n / max(1, on_count), 3)
            for cause, n in sorted(shed.items())
            if n
        },
        "avg_injected": round(
            injected
            / max(
                1, args.proxy_requests // 2 + 50 + sum(rps["on"]) * args.cost_duration
            ),
            2,
        ),
    }


PARTS: dict[str, Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "retrieval": bench_retrieval,
    "outbox": bench_enqueue_and_extraction,
    "proxy": bench_proxy_overhead,
    "cost": bench_cost,
}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes",
        default="1000,10000,100000",
        help="memories per owner, comma-separated",
    )
    parser.add_argument(
        "--queries", type=int, default=500, help="retrieval queries per size"
    )
    parser.add_argument(
        "--turns", type=int, default=5000, help="turns through the outbox"
    )
    parser.add_argument(
        "--proxy-memories",
        type=int,
        default=10_000,
        help="memories of the proxied owner",
    )
    parser.add_argument(
        "--proxy-requests",
        type=int,
        default=1000,
        help="requests (half with memory off)",
    )
    parser.add_argument(
        "--proxy-episodes",
        choices=("on", "off"),
        default="on",
        help="memory.episodes.enabled for the proxy part (on: the default)",
    )
    parser.add_argument(
        "--proxy-strategy", default="hybrid", help="memory.strategy for the proxy part"
    )
    parser.add_argument(
        "--cost-strategies",
        default="hybrid,keyword",
        help="strategies for the cost part",
    )
    parser.add_argument(
        "--cost-embedding",
        default="auto",
        help="embedding.source for the cost part (auto: the default install; none: "
        "keyword with no vectors at all)",
    )
    parser.add_argument(
        "--cost-onnx-graph",
        choices=("integer", "float"),
        default="integer",
        help="embedding.onnx_integer_matmul for the cost part (integer: the default; "
        "float: the model's graph as it is)",
    )
    parser.add_argument(
        "--cost-query-projection",
        choices=("auto", "always", "off"),
        default="auto",
        help="embedding.query_projection for the cost part (auto: the default)",
    )
    parser.add_argument(
        "--cost-questions",
        choices=("everyday", "template"),
        default="everyday",
        help="the cost part's messages (everyday: distinct 15-30-word chat questions, "
        "scripts/everyday_questions.py, as the acceptance run sends; template: the short "
        "'Tell me about a and b' message of the bench before)",
    )
    parser.add_argument(
        "--cost-order",
        choices=("consecutive", "alternate"),
        default="consecutive",
        help="c=1 order (consecutive: --cost-block memory-on requests back to back, then as "
        "many memory-off ones; alternate: on and off in turn, so the writes of a turn "
        "partly land on the memory-off request after it)",
    )
    parser.add_argument(
        "--cost-replies",
        choices=("distinct", "fixed"),
        default="distinct",
        help="the provider's replies (distinct: each its own, kept as an episode like real "
        "ones; fixed: one canned reply, stored once)",
    )
    parser.add_argument(
        "--cost-block",
        type=int,
        default=10,
        help="requests a block (--cost-order consecutive)",
    )
    parser.add_argument(
        "--cost-cpu",
        default="0",
        help="taskset CPU list memtap is pinned to (cost part; empty: not pinned)",
    )
    parser.add_argument(
        "--cost-duration",
        type=float,
        default=3.0,
        help="seconds of each c=8 closed loop (cost part)",
    )
    parser.add_argument(
        "--cost-py-spy",
        default="",
        help="sample memtap's c=8 memory-on loops with py-spy (file prefix)",
    )
    parser.add_argument(
        "--cost-keep-data",
        default="",
        help="copy memtap's data dir there after each strategy (cost part; suffix .STRATEGY)",
    )
    parser.add_argument(
        "--cost-py-spy-rate",
        type=int,
        default=200,
        help="py-spy samples a second (cost part)",
    )
    parser.add_argument(
        "--cost-rounds",
        type=int,
        default=3,
        help="interleaved off/on rounds (cost part)",
    )
    parser.add_argument(
        "--parts",
        default="retrieval,outbox,proxy",
        help=f"which parts to run ({', '.join(PARTS)})",
    )
    parser.add_argument(
        "--store",
        default="sqlite",
        choices=["sqlite", "qdrant"],
        help="record store (sqlite; qdrant: see bench_qdrant_store)",
    )
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="also the vector tier: hybrid p50/p99 and RSS per embedding source "
        "(scripts/bench_semantic.py)",
    )
    parser.add_argument(
        "--semantic-sources", default="static,onnx", help="sources for --semantic"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the figures as JSON on stdout"
    )
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s]
    return args


# -- --store qdrant (helper H) -----------------------------------------------------------------
async def bench_qdrant_store(args: argparse.Namespace) -> dict[str, Any]:
    """The Qdrant store's figures (scripts/bench_qdrant.py): bulk upsert, upsert_memory and
    owner-filtered hybrid search, in local mode (sizes up to 10k) and against $QDRANT_URL."""
    import os

    from scripts.bench_qdrant import run_qdrant_bench

    return {
        "runs": await run_qdrant_bench(
            args.sizes, args.queries, os.environ.get("QDRANT_URL")
        )
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"store": args.store}
    if args.store == "qdrant":
        out["qdrant"] = await bench_qdrant_store(args)
        return out
    for name in str(args.parts).split(","):
        out[name] = await PARTS[name](args)
    if args.semantic:
        from scripts.bench_semantic import run_semantic_bench

        out["semantic"] = await run_semantic_bench(
            args.sizes, str(args.semantic_sources).split(","), min(args.queries, 200)
        )
    return out


if __name__ == "__main__":
    arguments = parse()
    report = asyncio.run(main(arguments))
    if arguments.json:
        print(json.dumps(report, indent=2))
