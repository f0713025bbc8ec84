"""Forward mode through the whole memtap server, with real TLS on both sides.

An HTTPS provider stand-in with its own CA (not memtap's); memtap with `intercept.hosts` naming
it and `intercept.upstream_ca_file` trusting it; clients with HTTPS_PROXY pointing at memtap
and trusting memtap's CA only. A direct connection to the stand-in would fail verification,
so every success here went through memtap's interception.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.loader import LoadedConfig
from memtap.config.schema import (
    AdminConfig,
    Config,
    InterceptConfig,
    MemoryConfig,
    UpstreamConfig,
)
from memtap.proxy.modes.certs import LeafCertStore, ca_cert_path
from memtap.proxy.server import RunningServer, start_server
from tests.support.pki import make_pki
from tests.support.standin import Standin

API_KEY = "sk-forward-test-key"


def _standin(directory: Path, *, tls: bool) -> Standin:
    """The stand-in with this module's answers: "hello from upstream" to a chat completion and
    the request's path (with query) as JSON to anything else."""
    standin = Standin(
        tls=make_pki(directory) if tls else None,
        fallback=lambda recorded: {"path": recorded.path},
    )
    standin.reply_text = "hello from upstream"
    return standin


@pytest.fixture
async def https_standin(tmp_path: Path) -> AsyncIterator[Standin]:
    async with _standin(tmp_path / "standin-pki", tls=True) as server:
        yield server


@pytest.fixture
async def plain_standin(tmp_path: Path) -> AsyncIterator[Standin]:
    async with _standin(tmp_path / "plain", tls=False) as server:
        yield server


@pytest.fixture
async def memtap(
    tmp_path: Path, https_standin: Standin
) -> AsyncIterator[Callable[..., Any]]:
    """Start memtap intercepting the stand-in; `await memtap(intercept=..., memory=...)`."""
    started: list[RunningServer] = []

    async def start(**changes: Any) -> RunningServer:
        config = Config(
            listen="127.0.0.1:0",
            data_dir=str(tmp_path / "data"),
            intercept=InterceptConfig(
                hosts=(f"127.0.0.1:{https_standin.port}",),
                others="tunnel",
                upstream_ca_file=str(https_standin.ca_file),
            ),
            memory=MemoryConfig(enabled=False),
        )
        config = replace(config, **changes)
        running = await start_server(
            ConfigHolder(config), listen=("127.0.0.1", 0), watch_config=False
        )
        started.append(running)
        return running

    try:
        yield start
    finally:
        for running in started:
            await running.stop()


def _memtap_ca(tmp_path: Path) -> Path:
    return ca_cert_path(tmp_path / "data")


async def _ensure_ca(tmp_path: Path) -> Path:
    """`memtap ca path` before the first intercept: the file the user points SSL_CERT_FILE at."""
    await LeafCertStore(tmp_path / "data").ensure_ca()
    return _memtap_ca(tmp_path)


async def test_openai_sdk_with_https_proxy_env_non_stream_and_stream(
    tmp_path: Path,
    https_standin: Standin,
    memtap: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    running = await memtap()
    ca_file = await _ensure_ca(tmp_path)
    monkeypatch.setenv("HTTPS_PROXY", running.base_url)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    for name in (
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
        "https_proxy",
        "SSL_CERT_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    client = openai.AsyncOpenAI(
        base_url=f"{https_standin.url}/v1", api_key=API_KEY, max_retries=0
    )
    async with client:
        completion = await client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Memtap-Session": "s-1"},
        )
        assert completion.choices[0].message.content == "hello from upstream"
        https_standin.reply_text = "hello streamed world"
        stream = await client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "hi again"}],
            stream=True,
        )
        words = [
            c.choices[0].delta.content
            async for c in stream
            if c.choices and c.choices[0].delta.content
        ]
    assert "".join(words) == "hello streamed world"
    assert [r.json()["messages"][-1]["content"] for r in https_standin.requests] == [
        "hi",
        "hi again",
    ]
    first = https_standin.requests[0].headers
    # memtap's pipeline handled it: its own header was stripped, the key reached the upstream.
    assert "X-Memtap-Session" not in first
    assert first["Authorization"] == f"Bearer {API_KEY}"
    assert first["Host"] == f"127.0.0.1:{https_standin.port}"


async def test_explicit_httpx_client_keeps_alive_inside_the_tunnel(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    running = await memtap()
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        for i in range(3):
            response = await client.get(f"{https_standin.url}/v1/models?i={i}")
            assert response.status_code == 200
            assert response.json() == {"path": f"/v1/models?i={i}"}
    assert len(https_standin.requests) == 3


async def test_admin_paths_of_a_forwarded_request_belong_to_the_target(
    tmp_path: Path,
    https_standin: Standin,
    plain_standin: Standin,
    memtap: Callable[..., Any],
) -> None:
    running = await memtap()
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        intercepted = await client.get(f"{https_standin.url}/_memtap/health?x=1")
        absolute = await client.get(f"{plain_standin.url}/_memtap/stats")
        newline = await client.get(f"{plain_standin.url}/_memtap/a%0Ab")
    # The stand-in answered (memtap's own /_memtap/health has no "path" field).
    assert intercepted.status_code == 200
    assert intercepted.json() == {"path": "/_memtap/health?x=1"}
    assert [r.path for r in https_standin.requests] == ["/_memtap/health?x=1"]
    assert absolute.status_code == 200
    assert absolute.json() == {"path": "/_memtap/stats"}
    assert newline.status_code == 200 and newline.json() == {"path": "/_memtap/a%0Ab"}
    # memtap's admin API still answers requests addressed to memtap itself.
    async with httpx.AsyncClient(trust_env=False) as client:
        own = await client.get(f"{running.base_url}/_memtap/health")
    assert own.status_code == 200 and "path" not in own.json()


async def test_admin_paths_are_forwarded_when_the_admin_api_listens_elsewhere(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    running = await memtap(admin=AdminConfig(listen="127.0.0.1:0"))
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        forwarded = await client.get(f"{https_standin.url}/_memtap/memories")
        newline = await client.get(f"{https_standin.url}/_memtap/a%0Ab")
    assert forwarded.status_code == 200
    assert forwarded.json() == {"path": "/_memtap/memories"}
    assert newline.status_code == 200 and newline.json() == {"path": "/_memtap/a%0Ab"}
    # Addressed to memtap itself, the proxy port still says where the admin API is.
    async with httpx.AsyncClient(trust_env=False) as client:
        own = await client.get(f"{running.base_url}/_memtap/api/memories")
    assert own.status_code == 404 and own.json()["error"]["code"] == "not_found"


async def test_untrusted_upstream_certificate_is_502_upstream_tls(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    intercept = InterceptConfig(
        hosts=(f"127.0.0.1:{https_standin.port}",), upstream_ca_file=None
    )
    running = await memtap(intercept=intercept)
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        response = await client.post(
            f"{https_standin.url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
        )
        assert response.status_code == 502
        error = response.json()["error"]
        assert error["code"] == "upstream_tls"
        assert error["upstream"] == f"127.0.0.1:{https_standin.port}"
        assert "TLS" in error["message"] and "certificate" in error["message"].lower()
    assert https_standin.requests == []  # never a silent downgrade


async def test_absolute_uri_http_requests_are_proxied(
    plain_standin: Standin, memtap: Callable[..., Any]
) -> None:
    running = await memtap()
    async with httpx.AsyncClient(proxy=running.base_url, trust_env=False) as client:
        response = await client.get(f"{plain_standin.url}/v1/models?limit=2")
    assert response.status_code == 200
    assert response.json() == {"path": "/v1/models?limit=2"}
    assert (
        plain_standin.requests[0].headers["Host"] == f"127.0.0.1:{plain_standin.port}"
    )


async def test_absolute_uri_naming_memtap_itself_is_reverse_mode(
    https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    upstream = UpstreamConfig(
        name="https_standin", url=https_standin.url, ca_file=str(https_standin.ca_file)
    )
    running = await memtap(upstreams=(upstream,))
    async with httpx.AsyncClient(proxy=running.base_url, trust_env=False) as client:
        response = await client.get(f"{running.base_url}/v1/models")
    assert response.status_code == 200, response.text
    assert response.json() == {"path": "/v1/models"}


async def test_blind_tunnel_through_memtap_sees_the_real_upstream_certificate(
    tmp_path: Path,
    https_standin: Standin,
    memtap: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("INFO", logger="memtap")
    running = await memtap(
        intercept=InterceptConfig(hosts=("api.openai.com",), others="tunnel")
    )
    # The client trusts only the stand-in's CA: this succeeds only if memtap did not intercept.
    verify = ssl.create_default_context(cafile=str(https_standin.ca_file))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        response = await client.get(f"{https_standin.url}/v1/models")
    assert response.status_code == 200
    assert not _memtap_ca(
        tmp_path
    ).exists()  # nothing was intercepted: no CA was even needed
    # The tunnel is one request.done line, with the fields of any other request.
    done: list[dict[str, Any]] = []
    for _ in range(1000):
        done = [r.fields for r in caplog.records if r.getMessage() == "request.done"]  # type: ignore[attr-defined]
        if done:
            break
        await asyncio.sleep(0.01)
    assert len(done) == 1, done
    line = done[0]
    assert {
        k: line[k]
        for k in (
            "method",
            "path",
            "upstream",
            "status",
            "owner",
            "memories_injected",
            "stream",
            "connect",
        )
    } == {
        "method": "CONNECT",
        "path": f"127.0.0.1:{https_standin.port}",
        "upstream": "tunnel",
        "status": 200,
        "owner": None,
        "memories_injected": None,
        "stream": True,
        "connect": "tunnel",
    }
    assert (
        line["bytes_in"] > 0
        and line["bytes_out"] > 0
        and line["duration_ms"] >= line["ttfb_ms"] >= 0
    )
    assert len(line["request_id"]) == 32
    async with httpx.AsyncClient(trust_env=False) as client:
        metrics = (await client.get(f"{running.base_url}/_memtap/metrics")).text
    assert 'memtap_requests_total{upstream="tunnel",status="200"} 1' in metrics
    assert (
        'memtap_ttfb_ms_count{upstream="tunnel"} 1' in metrics
    )  # time to "established"


async def test_others_deny_refuses_non_intercepted_hosts(
    https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    running = await memtap(
        intercept=InterceptConfig(hosts=("api.openai.com",), others="deny")
    )
    verify = ssl.create_default_context(cafile=str(https_standin.ca_file))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        with pytest.raises(httpx.ProxyError, match="403"):
            await client.get(f"{https_standin.url}/v1/models")
    assert https_standin.requests == []
    async with httpx.AsyncClient(trust_env=False) as client:
        metrics = (await client.get(f"{running.base_url}/_memtap/metrics")).text
    assert 'memtap_requests_total{upstream="tunnel",status="403"} 1' in metrics


async def test_intercept_hosts_follow_the_live_config(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    """`intercept` is read per CONNECT: a runtime change applies to the next tunnel."""
    running = await memtap(intercept=InterceptConfig(hosts=(), others="deny"))
    holder = running.runtime.config
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        with pytest.raises(httpx.ProxyError):
            await client.get(f"{https_standin.url}/v1/models")
    new = replace(
        holder.current,
        intercept=InterceptConfig(
            hosts=(f"127.0.0.1:{https_standin.port}",),
            upstream_ca_file=str(https_standin.ca_file),
        ),
    )
    holder.reload_loaded(
        LoadedConfig(config=new, path=None, explicit=frozenset(), digest=None)
    )
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        assert (await client.get(f"{https_standin.url}/v1/models")).status_code == 200


async def test_intercepted_request_gets_memory_like_reverse_mode(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    """The same pipeline as reverse mode: a stored memory reaches the upstream request."""
    from memtap.config.schema import EmbeddingConfig, VectorStoreConfig
    from memtap.engine.memory_block import OPEN
    from memtap.engine.types import NewMemory
    from memtap.proxy.headers import owner_id_for_key

    running = await memtap(
        memory=MemoryConfig(enabled=True, strategy="recent", scope="owner"),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    engine = running.runtime.engine
    assert engine is not None, running.runtime.engine_error
    fact = "The user deploys everything on Fly.io."
    await engine.create_memory(NewMemory(owner=owner_id_for_key(API_KEY), content=fact))
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    http_client = httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    )
    client = openai.AsyncOpenAI(
        base_url=f"{https_standin.url}/v1",
        api_key=API_KEY,
        max_retries=0,
        http_client=http_client,
    )
    async with client:
        for stream in (False, True):
            raw = await client.chat.completions.with_raw_response.create(
                model="gpt-test",
                messages=[
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Where should I deploy?"},
                ],
                stream=stream,
            )
            assert int(raw.headers["X-Memtap-Memories"]) >= 1
            if stream:
                async for _ in raw.parse():
                    pass
    assert len(https_standin.requests) == 2
    for received in https_standin.requests:
        # At the system level or with the last user turn, as `memory.placement` says.
        texts = [
            m["content"]
            for m in received.json()["messages"]
            if m["role"] in ("system", "user")
        ]
        assert any(OPEN in text and fact in text for text in texts), texts


async def test_first_intercept_does_not_block_the_event_loop(
    tmp_path: Path,
    https_standin: Standin,
    memtap: Callable[..., Any],
    blocking_guard: Callable[[], Any],
) -> None:
    """Loading the CA, issuing the leaf and writing it to disk all happen off the event loop."""
    running = await memtap()
    ca_file = await _ensure_ca(tmp_path)
    verify = ssl.create_default_context(cafile=str(ca_file))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        with blocking_guard():
            response = await client.get(f"{https_standin.url}/v1/models")
    assert response.status_code == 200
    assert (tmp_path / "data" / "ca" / "leaves" / "127.0.0.1.pem").exists()


async def test_configured_upstream_at_the_same_origin_lends_its_settings(
    tmp_path: Path,
    https_standin: Standin,
    memtap: Callable[..., Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An `upstreams` entry for the intercepted origin lends its name and `ca_file`."""
    upstream = UpstreamConfig(
        name="provider", url=https_standin.url, ca_file=str(https_standin.ca_file)
    )
    intercept = InterceptConfig(hosts=("127.0.0.1",), upstream_ca_file=None)
    running = await memtap(upstreams=(upstream,), intercept=intercept)
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    caplog.set_level("INFO", logger="memtap")
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        assert (await client.get(f"{https_standin.url}/v1/models")).status_code == 200
    done = [r for r in caplog.records if r.getMessage() == "request.done"]
    assert [r.fields["upstream"] for r in done] == ["provider"]  # type: ignore[attr-defined]


async def test_unusable_upstream_ca_file_never_weakens_verification(
    tmp_path: Path, https_standin: Standin, memtap: Callable[..., Any]
) -> None:
    """A bundle that is not PEM (edited after start, say): system roots only, so 502, not 500."""
    bad = tmp_path / "not-a-bundle.pem"
    bad.write_text("this is not a certificate\n")
    intercept = InterceptConfig(hosts=("127.0.0.1",), upstream_ca_file=str(bad))
    running = await memtap(intercept=intercept)
    verify = ssl.create_default_context(cafile=str(await _ensure_ca(tmp_path)))
    async with httpx.AsyncClient(
        proxy=running.base_url, verify=verify, trust_env=False
    ) as client:
        response = await client.get(f"{https_standin.url}/v1/models")
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "upstream_tls"
    assert https_standin.requests == []
