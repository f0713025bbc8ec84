"""The admin CLI (`memtap owner-id`, `memtap memories ...`, `memtap owners erase`) as a
subprocess against a running memtap."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
import yaml

from memtap.config.schema import Config
from memtap.proxy.cli.client import Progress, url_from_listen
from tests.conftest import MemtapServer
from tests.support.admin import OWNER, TOKEN, Admin, start_admin
from tests.support.standin import Standin

MEMTAP = str(Path(sys.executable).with_name("memtap"))


@dataclass(frozen=True, slots=True)
class Result:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


async def memtap(
    *args: str,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Result:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMTAP_")}
    proc = await asyncio.create_subprocess_exec(
        MEMTAP,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**clean, **(env or {})},
        cwd=str(cwd) if cwd else None,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), 60)
    assert proc.returncode is not None
    return Result(proc.returncode, out.decode(), err.decode())


def target(admin: Admin) -> list[str]:
    return ["--url", admin.server.url, "--token", TOKEN]


@pytest.mark.slow
async def test_owner_id() -> None:
    expected = hashlib.sha256(b"sk-abc").hexdigest()[:24]
    assert (await memtap("owner-id", "sk-abc")).out.strip() == expected
    from_stdin = await memtap("owner-id", "-", stdin=b"sk-abc\n")
    assert from_stdin.code == 0 and from_stdin.out.strip() == expected
    assert (await memtap("owner-id", "-", stdin=b"")).code == 2
    # An end user behind the key: KEYOWNER:first 16 hex of sha256(ID).
    user = hashlib.sha256(b"alice@example.com").hexdigest()[:16]
    named = await memtap("owner-id", "sk-abc", "--user", "alice@example.com")
    assert named.code == 0 and named.out.strip() == f"{expected}:{user}"
    from_stdin = await memtap(
        "owner-id", "-", "--user", "alice@example.com", stdin=b"sk-abc\n"
    )
    assert from_stdin.out.strip() == f"{expected}:{user}"
    assert (await memtap("owner-id", "sk-abc", "--user", " ")).code == 2


@pytest.mark.slow
async def test_add_list_delete(admin: Admin, tmp_path: Path) -> None:
    added = await memtap(
        "memories",
        "add",
        *target(admin),
        "--owner",
        OWNER,
        "--type",
        "procedural",
        "--session",
        "s1",
        "--metadata",
        '{"from": "cli"}',
        "Run the tests with make test",
    )
    assert added.code == 0, added.err
    memory_id = added.out.strip()
    stored = await admin.call("GET", f"/api/memories/{memory_id}")
    assert stored.body["type"] == "procedural" and stored.body["metadata"] == {
        "from": "cli"
    }

    piped = await memtap(
        "memories",
        "add",
        *target(admin),
        "--owner",
        OWNER,
        "--json",
        "-",
        stdin=b"from stdin\nsecond line\n",  # the line end echo adds is dropped
    )
    assert piped.code == 0 and piped.json()["content"] == "from stdin\nsecond line"  # type: ignore[index]

    listed = await memtap(
        "memories", "list", *target(admin), "--json", "--owner", OWNER
    )
    assert listed.code == 0, listed.err
    page = listed.json()
    assert isinstance(page, dict) and page["total"] == 2
    assert {m["id"] for m in page["items"]} >= {memory_id}

    table = await memtap("memories", "list", *target(admin), "-q", "tests")
    assert table.code == 0
    header, *rows = table.out.splitlines()
    assert header.split()[:3] == ["ID", "OWNER", "TYPE"]
    assert len(rows) == 1 and memory_id in rows[0] and "Run the tests" in rows[0]
    assert "1-1 of 1" in table.err

    deleted = await memtap("memories", "delete", *target(admin), memory_id)
    assert deleted.code == 0 and memory_id in deleted.out
    missing = await memtap("memories", "delete", *target(admin), memory_id)
    assert missing.code == 1 and "not_found" in missing.err

    invalid = await memtap(
        "memories", "add", *target(admin), "--owner", "../x", "content"
    )
    assert invalid.code == 1 and "owner" in invalid.err
    bad_json = await memtap(
        "memories", "add", *target(admin), "--owner", OWNER, "--metadata", "{", "x"
    )
    assert bad_json.code == 2


@pytest.mark.slow
async def test_export_erase_import(admin: Admin, tmp_path: Path) -> None:
    originals = [await admin.create(content=f"exported memory {i}") for i in range(5)]
    out_file = tmp_path / "owner.jsonl"
    exported = await memtap(
        "memories", "export", *target(admin), OWNER, "-o", str(out_file)
    )
    assert exported.code == 0, exported.err
    assert len(out_file.read_text().splitlines()) == 5

    to_stdout = await memtap("memories", "export", *target(admin), OWNER)
    assert to_stdout.out.encode() == out_file.read_bytes()
    # With what the owner said too (none here: these memories were added, not said).
    whole = tmp_path / "whole.jsonl"
    backup = await memtap(
        "memories", "export", *target(admin), OWNER, "--episodes", "-o", str(whole)
    )
    assert backup.code == 0 and "5 lines (memories, then episodes)" in backup.err
    assert whole.read_bytes() == out_file.read_bytes()

    erased = await memtap("owners", "erase", *target(admin), OWNER, "--yes", "--json")
    assert erased.code == 0, erased.err
    receipt = erased.json()
    assert (
        isinstance(receipt, dict)
        and receipt["owner"] == OWNER
        and receipt["removed"]["memories"] == 5
    )
    assert (await admin.call("GET", "/api/memories", params={"owner": OWNER})).body[
        "total"
    ] == 0

    imported = await memtap("memories", "import", *target(admin), str(out_file))
    assert imported.code == 0, imported.err
    assert imported.out.strip() == "created 5, updated 0, skipped 0"
    listed = await admin.call("GET", "/api/memories", params={"owner": OWNER})
    assert {m["id"] for m in listed.body["items"]} == {m["id"] for m in originals}

    from_stdin = await memtap(
        "memories", "import", *target(admin), "--json", "-", stdin=out_file.read_bytes()
    )
    assert from_stdin.json() == {"created": 0, "updated": 5, "skipped": 0, "errors": []}

    said = {
        "kind": "episode",
        "owner": OWNER,
        "session": None,
        "role": "user",
        "content": "We moved to Leeds in March.",
        "said_at": "2026-03-02T10:00:00Z",
    }
    with_episode = await memtap(
        "memories", "import", *target(admin), "-", stdin=json.dumps(said).encode()
    )
    assert with_episode.code == 0, with_episode.err
    assert with_episode.out.splitlines() == [
        "created 0, updated 0, skipped 0",
        "episodes: 1 created, 0 unchanged",
    ]


@pytest.mark.slow
async def test_auth_and_connection_errors(admin: Admin) -> None:
    wrong = await memtap(
        "memories", "list", "--url", admin.server.url, "--token", "nope"
    )
    assert wrong.code == 1 and "unauthorized" in wrong.err and "HTTP 401" in wrong.err
    wrong_json = await memtap("memories", "list", "--url", admin.server.url, "--json")
    assert (
        wrong_json.code == 1
        and json.loads(wrong_json.err)["error"]["code"] == "unauthorized"
    )
    via_env = await memtap(
        "memories",
        "list",
        "--url",
        admin.server.url,
        "--json",
        env={"MEMTAP_ADMIN_TOKEN": TOKEN},
    )
    assert via_env.code == 0
    unreachable = await memtap(
        "memories", "list", "--url", "http://127.0.0.1:9", "--token", "x"
    )
    assert unreachable.code == 3 and "cannot reach memtap" in unreachable.err


@pytest.mark.slow
async def test_admin_calls_never_go_through_the_environment_proxy(admin: Admin) -> None:
    # HTTP_PROXY names a proxy for outbound traffic; the admin token must not reach it.
    dead_proxy = "http://127.0.0.1:9"
    listed = await memtap(
        "memories",
        "list",
        "--url",
        admin.server.url,
        "--json",
        env={
            "MEMTAP_ADMIN_TOKEN": TOKEN,
            "HTTP_PROXY": dead_proxy,
            "http_proxy": dead_proxy,
            "NO_PROXY": "",
            "no_proxy": "",
        },
    )
    assert listed.code == 0, listed.err


@pytest.mark.slow
async def test_target_from_config_file(admin: Admin, tmp_path: Path) -> None:
    port = admin.server.url.rsplit(":", 1)[1]
    config = tmp_path / "memtap.yaml"
    config.write_text(
        yaml.safe_dump(
            {"listen": f"0.0.0.0:{port}", "admin": {"token": "${CLI_TEST_TOKEN}"}}
        )
    )
    result = await memtap(
        "memories", "list", "-c", str(config), "--json", env={"CLI_TEST_TOKEN": TOKEN}
    )
    assert result.code == 0, result.err
    # config/memtap.yaml in the working directory is the default config file.
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "memtap.yaml").write_text(config.read_text())
    default = await memtap(
        "memories", "list", "--json", env={"CLI_TEST_TOKEN": TOKEN}, cwd=tmp_path
    )
    assert default.code == 0, default.err
    assert (
        await memtap("memories", "list", "-c", str(tmp_path / "absent.yaml"))
    ).code != 0
    # An unset variable without a default is the error memtap serve would give, naming
    # the key, not a silently empty token.
    unset = await memtap("memories", "list", "-c", str(config), "--json")
    assert (
        unset.code != 0 and "admin.token" in unset.err and "CLI_TEST_TOKEN" in unset.err
    )


def test_url_from_listen() -> None:
    assert url_from_listen("0.0.0.0:8080") == "http://127.0.0.1:8080"
    assert url_from_listen("[::]:8080") == "http://[::1]:8080"
    assert url_from_listen("10.1.2.3:9000") == "http://10.1.2.3:9000"


def test_progress_bar() -> None:
    stream = io.StringIO()
    bar = Progress("import", 200, stream, force=True)
    bar.update(200)
    bar.finish()
    assert "import [" in stream.getvalue() and "100.0%" in stream.getvalue()
    silent = io.StringIO()
    quiet = Progress("import", 10, silent)  # StringIO is not a TTY: no bar
    quiet.update(5)
    quiet.finish()
    assert silent.getvalue() == ""


async def test_reindex_in_batches_with_progress(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    from memtap.config.schema import EmbeddingConfig, MemoryConfig, VectorStoreConfig
    from memtap.proxy.cli.client import AdminClient, Target, reindex_with_progress

    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        memory=MemoryConfig(enabled=True, strategy="hybrid"),
        embedding=EmbeddingConfig(source="onnx"),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    for i in range(10):
        await admin.create(content=f"vector memory {i}")
    stream = io.StringIO()
    async with AdminClient(Target(admin.server.url, TOKEN)) as client:
        report = await reindex_with_progress(
            client, batch=3, force=True, stream=stream, force_bar=True
        )
    assert (
        report["started"] is True and report["done"] == 10 and report["pending"] == 0
    ), report
    drawn = stream.getvalue()
    assert "reindex [" in drawn and "10/10" in drawn and "3/10" in drawn
