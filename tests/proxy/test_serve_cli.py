"""`memtap serve`: flags, defaults, the listening line, exit codes; metrics over HTTP."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import _memtap_command

LISTENING = re.compile(r"^memtap listening on http://127\.0\.0\.1:(\d+)$")


@pytest.mark.slow
async def test_serve_with_flags_only_and_no_config_file(
    standin, memtap_process, tmp_path
):
    """No -c and no config/memtap.yaml in the cwd: built-in defaults + flags (memory on)."""
    data_dir = tmp_path / "flags-data"
    proc = await memtap_process(
        config_file=False,
        args=[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            standin.url,
            "--data-dir",
            str(data_dir),
        ],
    )
    match = LISTENING.match(proc.stdout_lines[0])
    assert match and int(match.group(1)) > 0
    async with (
        aiohttp.ClientSession() as client,
        client.get(proc.url + "/v1/models") as response,
    ):
        assert response.status == 200
    assert standin.last().path == "/v1/models"
    assert await proc.terminate() == 0
    assert proc.stdout_lines == [f"memtap listening on {proc.url}"]
    assert (
        await proc.read_stdout()
    ) == ""  # the listening line is the only stdout output
    assert data_dir.exists()  # --data-dir reached the engine


@pytest.mark.slow
async def test_flags_override_yaml(standin, memtap_process):
    proc = await memtap_process(
        {
            "listen": "127.0.0.1:1",
            "upstreams": [{"name": "yaml", "url": "http://127.0.0.1:9"}],
        },
        args=[
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            standin.url,
            "--format",
            "openai",
        ],
    )
    async with (
        aiohttp.ClientSession() as client,
        client.get(proc.url + "/v1/models") as response,
    ):
        assert response.status == 200
    assert await proc.terminate() == 0
    done = [e for e in proc.log_events() if e["event"] == "request.done"]
    assert done[0]["upstream"] == "default"


async def _run_serve(*args: str, cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *_memtap_command(),
        "serve",
        *args,
        cwd=str(cwd),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.slow
async def test_invalid_config_exits_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "listen: 127.0.0.1:0\nupstreams:\n  - name: x\n    url: not-a-url\n",
        encoding="utf-8",
    )
    code, out, err = await _run_serve("-c", str(bad), cwd=tmp_path)
    assert code == 1
    assert out == ""
    assert "upstreams[0].url" in err


@pytest.mark.slow
async def test_port_in_use_exits_1(tmp_path, standin):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = await _run_serve(
            "--listen",
            f"127.0.0.1:{port}",
            "--upstream",
            standin.url,
            "--data-dir",
            str(tmp_path),
            cwd=tmp_path,
        )
    assert code == 1
    assert out == ""
    assert "cannot start" in err


async def test_metrics_endpoint_reports_requests(standin, memtap_server):
    srv = await memtap_server()
    async with aiohttp.ClientSession() as client:
        async with client.post(
            srv.url + "/v1/chat/completions", json={"model": "m", "messages": []}
        ) as r:
            await r.read()
        async with client.post(
            srv.url + "/v1/chat/completions",
            json={"model": "m", "stream": True, "messages": []},
        ) as r:
            await r.read()
        async with client.get(srv.url + "/_memtap/metrics") as r:
            assert r.status == 200
            text = await r.text()
    assert 'memtap_requests_total{upstream="standin",status="200"} 2' in text
    assert 'memtap_request_duration_ms_count{upstream="standin"} 2' in text
    assert 'memtap_ttfb_ms_count{upstream="standin"} 2' in text
    assert "memtap_inflight_requests 0" in text
    assert "memtap_inflight_streams 0" in text
    assert re.search(
        r'memtap_bytes_relayed_total\{direction="downstream"\} [1-9]', text
    )
    assert re.search(r'memtap_bytes_relayed_total\{direction="upstream"\} [1-9]', text)


def test_serve_runs_on_uvloop_when_installed():
    from memtap.proxy.cli.serve_cmd import run_loop

    async def loop_module() -> str:
        return type(asyncio.get_running_loop()).__module__

    try:
        import uvloop  # noqa: F401
    except ImportError:  # pragma: no cover - uvloop is in the speed extra
        expected = "asyncio"
    else:
        expected = "uvloop"
    assert run_loop(loop_module).startswith(expected)


def test_settled_gc_freezes_start_up_and_collects_the_young_less_often():
    import gc

    from memtap.proxy.server import GC_YOUNG_THRESHOLD, settle_gc

    thresholds = gc.get_threshold()
    try:
        settle_gc()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *thresholds[1:])
        assert gc.isenabled()  # collected less often, never off: cycles still go
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


async def test_engine_failure_fails_open(
    standin, memtap_server, memtap_config, tmp_path
):
    from memtap.config.schema import MemoryConfig

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data directory should be")
    config = memtap_config(
        data_dir=str(blocker / "data"), memory=MemoryConfig(enabled=True)
    )
    srv = await memtap_server(config)
    assert srv.runtime.engine is None
    assert srv.runtime.engine_error
    async with aiohttp.ClientSession() as client:
        async with client.post(
            srv.url + "/v1/chat/completions", json={"model": "m", "messages": []}
        ) as r:
            assert r.status == 200
        async with client.get(srv.url + "/_memtap/health") as r:
            assert (await r.json())["store"].startswith("error")


async def test_admin_on_its_own_listener(standin, memtap_server, memtap_config):
    from memtap.config.schema import AdminConfig

    srv = await memtap_server(memtap_config(admin=AdminConfig(listen="127.0.0.1:0")))
    admin_runner = srv.running.admin_runner
    assert admin_runner is not None
    host, port = admin_runner.addresses[0][:2]
    async with aiohttp.ClientSession() as client:
        async with client.get(f"http://{host}:{port}/_memtap/health") as r:
            assert r.status == 200
        async with client.get(srv.url + "/_memtap/api/memories") as r:
            assert r.status == 404
            assert (await r.json())["error"]["code"] == "not_found"
    assert standin.requests == []  # not proxied upstream either
