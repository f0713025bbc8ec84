#!/usr/bin/env python3
"""Memory under load (issue 14 item 2): the share of requests that get their memory at N
concurrent streams, through a real `memtap serve` with the default install (embedding
`auto` = the packaged ONNX MiniLM, sqlite-vec, strategy hybrid, retrieval_timeout_ms 250).

    .venv/bin/python scripts/bench_load.py                         # 400 concurrent, 20 s
    .venv/bin/python scripts/bench_load.py --concurrency 400 --duration 30 --json
    .venv/bin/python scripts/bench_load.py --memtap-cpus 0         # memtap pinned (taskset)
    .venv/bin/python scripts/bench_load.py --ramp-s 3              # clients out of step
    .venv/bin/python scripts/bench_load.py --max-concurrent-retrievals 0   # A/B the slots

The provider is the tests' stand-in (`tests/support/standin.py`) in this process, streaming
each answer as SSE (`--events` events, `--event-delay-ms` apart). Owners: `--owners` API
keys, every other one holding a memory relevant to what it asks (plus `--noise` unrelated
memories each); each of the `--concurrency` clients sends ~450-character chat-completions
requests for one owner in a closed loop, so the owner's earlier turns are still being
extracted when its next request arrives (read-your-own-writes waits, as in real agents).

Reported: requests, errors, byte-exact bodies, the injected share among requests whose owner
has a relevant memory (target >= 99 %) and among the others (memory that was not relevant),
latency p50/p99, memtap's fallback counters and the vector backlog afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.engine_status import projection_building
from tests.support.standin import Standin, openai_chat_sse

MODEL = "gpt-4o-mini"
DRINKS = [
    "jasmine",
    "oolong",
    "sencha",
    "rooibos",
    "darjeeling",
    "matcha",
    "assam",
    "chai",
]
FILLER = (
    "I have been going through the notes from yesterday's planning meeting and trying to "
    "work out what to do first next week, since the release slipped and the team wants a "
    "clear order of work. There is also the question of the budget review on Thursday. "
)
NOISE = [
    "My bicycle is painted {} green",
    "The quarterly report uses template {}",
    "I keep the spare keys in drawer {}",
    "My train leaves from platform {}",
]


def owner_key(index: int) -> str:
    return f"sk-load-{index:04d}"


def relevant(index: int) -> bool:
    return index % 2 == 0


def memory_lines(owners: int, noise: int) -> bytes:
    lines = []
    for index in range(owners):
        key = owner_key(index)
        owner = hashlib.sha256(key.encode()).hexdigest()[:24]
        if relevant(index):
            drink = DRINKS[index % len(DRINKS)]
            lines.append(
                {
                    "owner": owner,
                    "content": f"My favourite tea is {drink}, brewed for three minutes",
                }
            )
        for n in range(noise):
            lines.append(
                {
                    "owner": owner,
                    "content": NOISE[n % len(NOISE)].format(index * 100 + n),
                }
            )
    return b"\n".join(json.dumps(line).encode() for line in lines) + b"\n"


def question(index: int, turn: int) -> str:
    # ~450 characters, the question at the end, as in the run.
    return f"{FILLER}Anyway, before I forget (turn {turn}): which tea do I like best?"


@contextlib.asynccontextmanager
async def memtap_process(
    args: argparse.Namespace, upstream: str, tmp: Path
) -> AsyncIterator[tuple[str, int, Path]]:
    config = tmp / "memtap.yaml"
    config.write_text(
        f"listen: 127.0.0.1:0\ndata_dir: {tmp}/data\n"
        f"upstreams:\n  - name: standin\n    url: {upstream}\n"
        f"log:\n  format: json\n  level: info\n"
        + "memory:\n"
        + (f"  strategy: {args.strategy}\n" if args.strategy else "")
        + (
            f"  max_concurrent_retrievals: {args.max_concurrent_retrievals}\n"
            if args.max_concurrent_retrievals is not None
            else ""
        )
        + f"  episodes:\n    enabled: {'true' if args.episodes == 'on' else 'false'}\n"
        + f"embedding:\n  onnx_integer_matmul: {str(args.onnx_graph == 'integer').lower()}\n"
        + f"  query_projection: {args.query_projection}\n"
    )
    memtap = str(Path(sys.executable).with_name("memtap"))
    command = [memtap, "serve", "-c", str(config)]
    if args.memtap_cpus and shutil.which("taskset"):
        command = ["taskset", "-c", args.memtap_cpus, *command]
    log_path = tmp / "memtap.log"
    with log_path.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, stderr=stderr
        )
        try:
            assert proc.stdout is not None
            while True:
                line = (await asyncio.wait_for(proc.stdout.readline(), 120)).decode()
                if not line:
                    raise RuntimeError(f"memtap exited: {log_path.read_text()[-2000:]}")
                if line.startswith("memtap listening on "):
                    yield line.split()[-1], proc.pid, log_path
                    break
        finally:
            if proc.returncode is None:
                proc.terminate()
                await proc.wait()


async def admin_json(
    session: aiohttp.ClientSession, method: str, url: str, **kw: Any
) -> Any:
    async with session.request(method, url, **kw) as response:
        response.raise_for_status()
        return await response.json()


async def wait_indexed(
    session: aiohttp.ClientSession, base: str, timeout_s: float
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        status = await admin_json(session, "GET", base + "/_memtap/api/engine-status")
        vector = status["vector"]
        if (
            vector.get("needs_reindex", 0) == 0
            and status["outbox"]["depth"] == 0
            and not projection_building(status)
        ):
            return status
        if time.monotonic() > deadline:
            return status
        await asyncio.sleep(0.5)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its threads (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cache_events(metrics_text: str) -> dict[str, float]:
    """The facts' vector cache: loads against hits tell whether it stayed warm."""
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(
            r'^memtap_vector_cache_events_total\{event="([^"]+)"\} (\S+)$',
            metrics_text,
            re.MULTILINE,
        )
    }


def fallback_counts(metrics_text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for match in re.finditer(
        r'^memtap_memory_fallbacks_total\{cause="([^"]+)"\} (\S+)$',
        metrics_text,
        re.MULTILINE,
    ):
        out[match.group(1)] = float(match.group(2))
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    reply_text = " ".join(f"word{i}" for i in range(args.events))
    standin = Standin(record=False)
    standin.reply_text = reply_text
    standin.chunk_delay_s = args.event_delay_ms / 1000
    await standin.start()
    expected = hashlib.sha256(b"".join(openai_chat_sse(reply_text, MODEL))).hexdigest()
    tmp = Path(tempfile.mkdtemp(prefix="memtap-load-"))
    try:
        async with memtap_process(args, standin.url, tmp) as (base, pid, log_path):
            connector = aiohttp.TCPConnector(limit=0)
            timeout = aiohttp.ClientTimeout(total=120)
            async with aiohttp.ClientSession(
                connector=connector, timeout=timeout
            ) as session:
                started = time.monotonic()
                imported = await admin_json(
                    session,
                    "POST",
                    base + "/_memtap/api/import",
                    data=memory_lines(args.owners, args.noise),
                )
                status = await wait_indexed(session, base, 300)
                print(
                    f"imported {imported['created']} memories in {time.monotonic() - started:.1f} s; "
                    f"vector: {status['vector'].get('needs_reindex')} left",
                    file=sys.stderr,
                )
                spy = await start_py_spy(args, pid)
                cpu_before, wall_before = cpu_seconds(pid), time.monotonic()
                outcome = await load(session, base, args, expected)
                cpu_used = cpu_seconds(pid) - cpu_before
                outcome["memtap_cores_busy"] = round(
                    cpu_used / (time.monotonic() - wall_before), 2
                )
                outcome["memtap_cpu_ms_per_request"] = round(
                    cpu_used * 1000 / max(1, outcome["requests"]), 2
                )
                if spy is not None:
                    await spy.wait()
                metrics_text = await (
                    await session.get(base + "/_memtap/metrics")
                ).text()
                after = await wait_indexed(session, base, args.settle_s)
        fallbacks = fallback_counts(metrics_text)
        errors = [
            line
            for line in log_path.read_text().splitlines()
            if '"level": "error"' in line or '"level":"error"' in line
        ]
        for line in errors[:3]:  # what went wrong, before the data dir is removed
            print(f"error line: {line[:600]}", file=sys.stderr)
    finally:
        await standin.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    outcome.update(
        fallbacks=fallbacks,
        vector_cache_events=cache_events(metrics_text),
        error_lines=len(errors),
        needs_reindex_after=after["vector"].get("needs_reindex"),
        outbox_depth_after=after["outbox"]["depth"],
    )
    return outcome


async def start_py_spy(
    args: argparse.Namespace, pid: int
) -> asyncio.subprocess.Process | None:
    """`--py-spy FILE`: sample memtap during the load (collapsed stacks, for flame graphs)."""
    if not args.py_spy:
        return None
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return await asyncio.create_subprocess_exec(
        py_spy,
        "record",
        "-p",
        str(pid),
        "-d",
        str(int(args.duration)),
        "-r",
        "50",
        "--format",
        "raw",
        "-o",
        args.py_spy,
        "--threads",
        "--nonblocking",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def load(
    session: aiohttp.ClientSession, base: str, args: argparse.Namespace, expected: str
) -> dict[str, Any]:
    url = base + "/v1/chat/completions"
    deadline = time.monotonic() + args.duration
    latencies: list[float] = []
    tally: Counter[str] = Counter()

    async def client(number: int) -> None:
        index = number % args.owners
        turn = 0
        # Staggered starts (`--ramp-s`): closed-loop clients with equal answer times that all
        # start at once stay in step, so every request arrives in a burst of `concurrency`.
        await asyncio.sleep(args.ramp_s * number / max(1, args.concurrency))
        while time.monotonic() < deadline:
            turn += 1
            body = {
                "model": MODEL,
                "stream": True,
                "messages": [
                    {"role": "system", "content": "You are a helpful assistant."},
                    {"role": "user", "content": question(index, turn)},
                ],
            }
            t0 = time.perf_counter()
            try:
                async with session.post(
                    url,
                    json=body,
                    headers={"Authorization": f"Bearer {owner_key(index)}"},
                ) as response:
                    digest = hashlib.sha256()
                    async for chunk in response.content.iter_any():
                        digest.update(chunk)
                    injected = int(response.headers.get("X-Memtap-Memories", "0") or 0)
                    ok = response.status == 200
            except (aiohttp.ClientError, TimeoutError):
                tally["errors"] += 1
                continue
            latencies.append(time.perf_counter() - t0)
            tally["requests"] += 1
            tally["errors"] += 0 if ok else 1
            tally["exact"] += digest.hexdigest() == expected
            side = "relevant" if relevant(index) else "other"
            tally[side] += 1
            tally[f"{side}_injected"] += injected > 0

    started = time.monotonic()
    await asyncio.gather(*(client(n) for n in range(args.concurrency)))
    elapsed = time.monotonic() - started
    ms = sorted(x * 1000 for x in latencies)
    return {
        "concurrency": args.concurrency,
        "owners": args.owners,
        "requests": tally["requests"],
        "errors": tally["errors"],
        "byte_exact": tally["exact"],
        "req_per_s": round(tally["requests"] / elapsed, 1),
        "relevant_requests": tally["relevant"],
        "injected_share_relevant": round(
            tally["relevant_injected"] / max(1, tally["relevant"]), 4
        ),
        "injected_share_other": round(
            tally["other_injected"] / max(1, tally["other"]), 4
        ),
        "latency_p50_ms": round(statistics.median(ms), 1) if ms else None,
        "latency_p99_ms": round(ms[int(len(ms) * 0.99) - 1], 1) if ms else None,
    }


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--concurrency", type=int, default=400, help="concurrent streams"
    )
    parser.add_argument(
        "--ramp-s",
        type=float,
        default=0.0,
        help="spread the clients' first requests over this many seconds (0: all at once)",
    )
    parser.add_argument(
        "--owners",
        type=int,
        default=100,
        help="API keys (every other one has a relevant memory)",
    )
    parser.add_argument(
        "--noise", type=int, default=20, help="unrelated memories per owner"
    )
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load")
    parser.add_argument("--events", type=int, default=20, help="SSE events per answer")
    parser.add_argument(
        "--event-delay-ms", type=float, default=10.0, help="between SSE events"
    )
    parser.add_argument(
        "--settle-s",
        type=float,
        default=60.0,
        help="wait for the backlog to clear after",
    )
    parser.add_argument(
        "--memtap-cpus",
        default=os.environ.get("MEMTAP_CPUS", ""),
        help="taskset CPU list for memtap (empty: not pinned)",
    )
    parser.add_argument(
        "--strategy", default="", help="memory.strategy (empty: the default, hybrid)"
    )
    parser.add_argument(
        "--py-spy", default="", help="sample memtap with py-spy into this file (raw)"
    )
    parser.add_argument(
        "--episodes",
        choices=("on", "off"),
        default="on",
        help="memory.episodes.enabled (on: the default install)",
    )
    parser.add_argument(
        "--onnx-graph",
        choices=("integer", "float"),
        default="integer",
        help="embedding.onnx_integer_matmul (integer: the default install; float: the "
        "model's graph as it is)",
    )
    parser.add_argument(
        "--query-projection",
        choices=("auto", "always", "off"),
        default="auto",
        help="embedding.query_projection (auto: the default install)",
    )
    parser.add_argument(
        "--max-concurrent-retrievals",
        type=int,
        default=None,
        help="memory.max_concurrent_retrievals (unset: the default, 8; 0: no limit)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser.parse_args(argv)


def main() -> None:
    args = parse()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, value in result.items():
            print(f"{name:<26}{value}")
        share = result["injected_share_relevant"]
        print(f"\ninjected where relevant: {share:.1%} (target >= 99%)")


if __name__ == "__main__":
    main()
