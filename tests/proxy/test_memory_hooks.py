"""The memory addons' hooks called directly on flows from `tflow()` (no network): the
decision made once in `request_headers`, injection acting on it, capture's part of the way
in, and the pipeline's new hook."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import orjson
import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    ServerConfig,
    VectorStoreConfig,
)
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import NewMemory
from memtap.proxy.addons import default_addons
from memtap.proxy.addons.capture import CaptureAddon
from memtap.proxy.addons.inject import InjectAddon
from memtap.proxy.appkeys import Runtime
from memtap.proxy.flow import Flow
from memtap.proxy.headers import owner_id_for_key
from memtap.proxy.pipeline import Addon, Pipeline
from tests.support.flows import API_KEY, chat_body, give_body, tflow

OWNER = owner_id_for_key(API_KEY)


def _config(tmp_path: Path, **memory: object) -> Config:
    return Config(
        data_dir=str(tmp_path / "data"),
        memory=dataclasses.replace(
            MemoryConfig(enabled=True, strategy="recent", scope="owner"), **memory
        ),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
        server=ServerConfig(max_rewrite_body_bytes=4096),
    )


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    """A Runtime with a real engine (SQLite in tmp_path, no worker, no embeddings)."""
    holder = ConfigHolder(_config(tmp_path), str(tmp_path / "absent.yaml"))
    metrics = Metrics()
    engine = await open_engine(holder, metrics, start_worker=False)
    try:
        yield Runtime(
            config=holder, metrics=metrics, pipeline=Pipeline(()), engine=engine
        )
    finally:
        await engine.close()


def _without_engine(tmp_path: Path) -> Runtime:
    holder = ConfigHolder(_config(tmp_path), str(tmp_path / "absent.yaml"))
    return Runtime(config=holder, metrics=Metrics(), pipeline=Pipeline(()))


async def _decided(runtime: Runtime, flow: Flow) -> Flow:
    await InjectAddon(runtime).request_headers(flow)
    return flow


# -- request_headers: the decision, once ------------------------------------------------


async def test_a_memory_request_gets_its_codec_and_its_body_read(
    runtime: Runtime,
) -> None:
    flow = await _decided(runtime, tflow(body=chat_body("hello")))
    assert flow.owner_id == OWNER
    assert flow.codec is not None and flow.codec.format == "openai-chat"
    assert flow.read_body
    assert flow.memory.skipped_reason is None


async def test_a_chunked_body_of_unknown_size_is_read_for_memory(
    runtime: Runtime,
) -> None:
    # The handler reads it up to server.max_rewrite_body_bytes and keeps memory out past it.
    flow = await _decided(runtime, tflow(body=chat_body("hello"), chunked=True))
    assert flow.codec is not None and flow.read_body
    assert flow.memory.skipped_reason is None


@pytest.mark.parametrize(
    ("make_flow", "reason"),
    [
        (lambda: tflow(body=chat_body("hi"), api_key=None), "no_api_key"),
        (
            lambda: tflow(body=chat_body("hi"), headers={"X-Memtap-Memory": "off"}),
            "memory_header_off",
        ),
        (lambda: tflow(body=chat_body("x" * 5000)), "body_not_buffered"),
        (lambda: tflow("/v1/models", method="GET"), "not_a_memory_endpoint"),
        (
            lambda: tflow("/v1/embeddings", body={"input": "hi"}),
            "not_a_memory_endpoint",
        ),
    ],
    ids=["no-key", "header-off", "too-large", "no-body", "not-memory-path"],
)
async def test_memory_stays_out_and_the_body_streams(
    runtime: Runtime, make_flow: Callable[[], Flow], reason: str
) -> None:
    flow = await _decided(runtime, make_flow())
    assert flow.codec is None
    assert not flow.read_body
    assert flow.memory.skipped_reason == reason
    assert flow.memories_injected is None  # the access log's field stays null


async def test_no_engine_or_memory_disabled_decides_against_memory(
    tmp_path: Path, runtime: Runtime
) -> None:
    flow = await _decided(_without_engine(tmp_path), tflow(body=chat_body("hi")))
    assert (flow.codec, flow.read_body) == (None, False)
    assert flow.memory.skipped_reason == "engine_unavailable"

    disabled = dataclasses.replace(
        runtime,
        config=ConfigHolder(
            _config(tmp_path, enabled=False), str(tmp_path / "no.yaml")
        ),
    )
    flow = await _decided(disabled, tflow(body=chat_body("hi")))
    assert (flow.codec, flow.read_body) == (None, False)
    assert flow.memory.skipped_reason == "memory_disabled"


async def test_read_mode_still_reads_the_body(runtime: Runtime) -> None:
    flow = await _decided(
        runtime, tflow(body=chat_body("hi"), headers={"X-Memtap-Memory": "read"})
    )
    assert flow.memory_mode == "read"
    assert flow.read_body and flow.codec is not None


# -- request: inject acts on the decision -------------------------------------------------


async def test_inject_adds_the_owners_memory_after_the_decision(
    runtime: Runtime,
) -> None:
    assert runtime.engine is not None
    await runtime.engine.create_memory(
        NewMemory(owner=OWNER, content="The user's database is Postgres 16")
    )
    inject = InjectAddon(runtime)
    body = chat_body("Which database do I use?")
    flow = tflow(body=body)
    await inject.request_headers(flow)
    assert flow.read_body
    give_body(flow, body)
    await inject.request(flow)
    assert flow.body_rewritten
    assert flow.body is not None and b"Postgres 16" in flow.body
    assert len(flow.memory.injected_ids) == 1
    assert flow.extra_response_headers["X-Memtap-Memories"] == "1"
    # The default placement (last_user) carries the block with the user's own words.
    last = orjson.loads(flow.body)["messages"][-1]
    assert last["role"] == "user"
    assert "Which database do I use?" in str(last["content"])
    assert "<memtap:memories>" in str(last["content"])


async def test_inject_leaves_an_undecided_flow_alone(runtime: Runtime) -> None:
    """Without the request_headers decision (no codec) the request hook changes nothing,
    even with a body present: nothing is checked twice, nothing is guessed."""
    body = chat_body("Which database do I use?")
    flow = tflow(body=body)
    give_body(flow, body)
    await InjectAddon(runtime).request(flow)
    assert not flow.body_rewritten
    assert flow.memory.conversation is None
    assert "X-Memtap-Memories" not in flow.extra_response_headers


# -- capture's part of the way in -----------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "sent"),
    [("on", "gzip, identity"), ("read", "gzip, br, identity")],
)
async def test_capture_asks_only_for_encodings_it_can_follow(
    runtime: Runtime, mode: str, sent: str
) -> None:
    inject, capture = InjectAddon(runtime), CaptureAddon(runtime)
    body = chat_body("hello")
    flow = tflow(
        body=body,
        headers={"Accept-Encoding": "gzip, br, identity", "X-Memtap-Memory": mode},
    )
    await inject.request_headers(flow)
    give_body(flow, body)
    await inject.request(flow)
    await capture.request(flow)
    assert flow.request_headers["Accept-Encoding"] == sent


async def test_capture_leaves_encodings_of_other_requests_alone(
    runtime: Runtime,
) -> None:
    flow = tflow("/v1/models", method="GET", headers={"Accept-Encoding": "br"})
    await InjectAddon(runtime).request_headers(flow)
    await CaptureAddon(runtime).request(flow)
    assert flow.request_headers["Accept-Encoding"] == "br"


# -- the pipeline ----------------------------------------------------------------------------


def test_default_addons_read_as_the_product(tmp_path: Path) -> None:
    addons = default_addons(_without_engine(tmp_path))
    assert [a.name for a in addons] == [
        "memory.inject",
        "memory.capture",
        "request_log",
        "access_log",
    ]
    assert [a.uses_memory for a in addons] == [True, True, False, False]


async def test_pipeline_calls_request_headers_in_order_and_survives_a_failure() -> None:
    calls: list[str] = []

    class Deciding(Addon):
        name = "deciding"

        async def request_headers(self, flow: Flow) -> None:
            calls.append(self.name)
            flow.read_body = True

    class Failing(Addon):
        name = "failing"

        async def request_headers(self, flow: Flow) -> None:
            calls.append(self.name)
            raise RuntimeError("boom")

    class Later(Addon):
        name = "later"

        async def request_headers(self, flow: Flow) -> None:
            calls.append(self.name)

    flow = tflow(body=chat_body("hi"))
    await Pipeline([Failing(), Deciding(), Later(), Addon()]).request_headers(flow)
    assert calls == ["failing", "deciding", "later"]
    assert flow.read_body
