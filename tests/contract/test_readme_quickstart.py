"""The README's Quick start, run as written: the repository's config/memtap.yaml served by
`memtap serve` (the upstream pointed at the stand-in instead of api.openai.com), and the
README's own Python snippet run with the official `openai` SDK. It must print what the
README says it prints: `1` — the first turn is visible to the request sent right after it
(read-your-own-writes)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.standin import Standin

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(180)


def quick_start_snippet() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found, "the Quick start has no Python snippet"
    return found.group(1)


def test_the_snippet_says_what_it_prints() -> None:
    assert 'print(reply.headers["X-Memtap-Memories"])  # "1"' in quick_start_snippet()


@pytest.mark.parametrize("run", range(3))
@pytest.mark.slow
async def test_the_quick_start_prints_what_it_promises(
    run: int,
    standin: Standin,
    memtap_process: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    server = await memtap_process(
        yaml_text=(REPO / "config" / "memtap.yaml").read_text(encoding="utf-8"),
        args=(
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            standin.url,
            "--data-dir",
            str(tmp_path / f"data-{run}"),
        ),
        startup_timeout=120.0,
    )
    script = tmp_path / "quick_start.py"
    script.write_text(quick_start_snippet(), encoding="utf-8")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={
            **os.environ,
            "OPENAI_BASE_URL": f"{server.url}/v1",
            "OPENAI_API_KEY": f"sk-quickstart-{run}",
        },
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == "1", (out, err)
