"""The CLI as the contract lists it, the way people type it: `memtap serve` as a subprocess and
`memtap memories|owners ...` subprocesses against it (no in-process shortcuts)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import MemtapProcess
from tests.support.standin import Standin

MEMTAP = str(Path(sys.executable).with_name("memtap"))
OWNER = "c0ffee" * 4
TOKEN = "contract-cli-token"


@dataclass(frozen=True, slots=True)
class Result:
    code: int
    out: str
    err: str


async def cli(*args: str, stdin: bytes | None = None) -> Result:
    """Run `memtap ARGS` with stdin a pipe (bytes given) or /dev/null: never a terminal."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMTAP_")}
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        *args,
        stdin=asyncio.subprocess.PIPE
        if stdin is not None
        else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), 60)
    assert proc.returncode is not None
    return Result(proc.returncode, out.decode(), err.decode())


@pytest.fixture
async def server(
    memtap_process: Callable[..., Awaitable[MemtapProcess]],
    standin: Standin,  # set up first: memtap_process points the config at it
) -> MemtapProcess:
    return await memtap_process(
        {
            "memory": {"enabled": True},
            "vector_store": {"kind": "none"},
            "embedding": {"source": "none"},
        },
        args=["--admin-token", TOKEN],
    )


def target(server: MemtapProcess) -> list[str]:
    return ["--url", server.url, "--token", TOKEN]


async def test_version_flag() -> None:
    result = await cli("--version")
    assert result.code == 0
    assert result.out.startswith("memtap ")


@pytest.mark.slow
async def test_memories_add_takes_content_as_flag_or_positional(
    server: MemtapProcess,
) -> None:
    by_flag = await cli(
        "memories",
        "add",
        *target(server),
        "--owner",
        OWNER,
        "--content",
        "Likes tea",
        "--json",
    )
    assert by_flag.code == 0, by_flag.err
    assert json.loads(by_flag.out)["content"] == "Likes tea"
    positional = await cli(
        "memories", "add", *target(server), "--owner", OWNER, "Likes jazz"
    )
    assert positional.code == 0, positional.err
    missing = await cli("memories", "add", *target(server), "--owner", OWNER)
    assert missing.code == 2
    assert "content" in missing.err

    listed = await cli("memories", "list", *target(server), "--owner", OWNER, "--json")
    assert listed.code == 0, listed.err
    page = json.loads(listed.out)
    assert page["total"] == 2
    assert {m["content"] for m in page["items"]} == {"Likes tea", "Likes jazz"}


@pytest.mark.slow
async def test_export_owner_flag_erase_from_a_script_and_import_from_stdin(
    server: MemtapProcess,
) -> None:
    for text in ("Uses vim", "Lives in Lyon", "Prefers Postgres"):
        added = await cli("memories", "add", *target(server), "--owner", OWNER, text)
        assert added.code == 0, added.err

    exported = await cli("memories", "export", *target(server), "--owner", OWNER)
    assert exported.code == 0, exported.err
    lines = exported.out.splitlines()
    assert len(lines) == 3
    assert {json.loads(line)["owner"] for line in lines} == {OWNER}

    # The contract's form, as a script runs it: no --yes, stdin not a terminal.
    erased = await cli("owners", "erase", *target(server), OWNER, "--json")
    assert erased.code == 0, erased.err
    receipt = json.loads(erased.out)
    assert receipt["owner"] == OWNER
    assert receipt["removed"]["memories"] == 3
    for place in ("outbox", "fts", "vectors"):
        assert place in receipt["removed"]

    imported = await cli(
        "memories", "import", *target(server), "--json", stdin=exported.out.encode()
    )
    assert imported.code == 0, imported.err
    report = json.loads(imported.out)
    assert (report["created"], report["updated"], report["skipped"]) == (3, 0, 0)
    listed = await cli("memories", "list", *target(server), "--owner", OWNER, "--json")
    assert json.loads(listed.out)["total"] == 3
