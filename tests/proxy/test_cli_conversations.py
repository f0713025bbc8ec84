"""`memtap conversations import FILE` as a subprocess against memtap running as a process."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.conftest import MemtapProcess
from tests.proxy.test_cli_admin import memtap
from tests.proxy.test_conversation_import import T0, conversation, export
from tests.support.standin import Standin

TOKEN = "cli-conv-token-51d0"
KEY = "sk-cli-RAW-key-never-logged-77"
OWNER = hashlib.sha256(KEY.encode()).hexdigest()[:24]

StartProcess = Callable[..., Awaitable[MemtapProcess]]


async def start(memtap_process: StartProcess) -> MemtapProcess:
    return await memtap_process(
        {
            "memory": {"enabled": True, "strategy": "keyword"},
            "embedding": {"source": "none"},
            "vector_store": {"kind": "none"},
            "admin": {"token": TOKEN},
            "log": {"format": "json", "level": "debug"},
        }
    )


async def memories(proc: MemtapProcess, owner: str) -> list[dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"{proc.url}/_memtap/api/memories",
            params={"owner": owner, "limit": "100"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        ) as response,
    ):
        return list((await response.json())["items"])


@pytest.mark.slow
async def test_cli_imports_jsonl_and_chatgpt_export(
    memtap_process: StartProcess, tmp_path: Path, standin: Standin
) -> None:
    proc = await start(memtap_process)
    target = ["--url", proc.url, "--token", TOKEN]
    lines = tmp_path / "turns.jsonl"
    lines.write_text(
        "".join(
            json.dumps(line) + "\n"
            for line in [
                {
                    "api_key": KEY,
                    "session": "a",
                    "role": "user",
                    "content": "I went to the dentist yesterday.",
                    "ts": "2026-11-20T10:00:00Z",
                },
                {
                    "api_key": KEY,
                    "session": "a",
                    "role": "assistant",
                    "content": "Hope it went well.",
                    "ts": "2026-11-20T10:00:02Z",
                },
                {"api_key": KEY, "session": "a", "role": "user", "content": "no time"},
            ]
        )
    )
    first = await memtap("conversations", "import", str(lines), *target)
    assert first.code == 1, first.err  # one bad line: reported, exit 1
    assert "imported 1 turns" in first.out and "1 errors" in first.out
    assert "line 3: ts is required" in first.err
    assert "import: 100% sent" in first.err  # plain progress lines off a terminal
    again = await memtap("conversations", "import", str(lines), *target, "--json")
    report = json.loads(again.out)
    assert report["turns"] == 0 and report["skipped"] == 1

    doc = tmp_path / "conversations.json"
    doc.write_text(
        export(
            conversation("conv-new", T0 + 86400, "I adopted a cat two days ago.", "Hi"),
            conversation(
                "conv-old", T0, "We drove to the coast last weekend.", "Hello"
            ),
        )
    )
    imported = await memtap(
        "conversations", "import", str(doc), *target, "--api-key", KEY, "--json"
    )
    assert imported.code == 0, imported.err
    assert json.loads(imported.out)["turns"] == 4
    contents = {m["content"]: m for m in await memories(proc, OWNER)}
    assert "Went to the dentist yesterday (2026-11-19)" in contents
    cat = contents["Adopted a cat two days ago (2026-11-17)"]
    assert cat["session"] == "conv-new"
    assert cat["created_at"].startswith("2026-11-19T11:0")
    # An export as a browser or an editor saves it, indented over many lines: each
    # conversation still goes up as one line (the server reads the body line by line).
    pretty = tmp_path / "pretty.json"
    pretty.write_text(
        json.dumps(
            json.loads(
                export(
                    conversation("conv-p", T0, "I moved to Porto last spring.", "Hi")
                )
            ),
            indent=2,
        )
    )
    indented = await memtap(
        "conversations", "import", str(pretty), *target, "--owner", "o" * 24, "--json"
    )
    assert indented.code == 0, indented.out + indented.err
    assert json.loads(indented.out)["turns"] == 2

    await proc.terminate()
    assert KEY not in proc.stderr_text()
    assert OWNER in proc.stderr_text()  # it logged, with the owner id only
    for file in (tmp_path / "data").rglob("*"):
        if file.is_file():
            assert KEY.encode() not in file.read_bytes(), file


@pytest.mark.slow
async def test_cli_usage_errors(tmp_path: Path) -> None:
    missing = await memtap("conversations", "import", str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and "no such file" in missing.err
    broken = tmp_path / "broken.json"
    broken.write_text('[{"mapping": {}}, "not a conversation"]')
    bad = await memtap(
        "conversations", "import", str(broken), "--url", "http://127.0.0.1:9"
    )
    assert bad.code == 2 and "not a ChatGPT export" in bad.err
