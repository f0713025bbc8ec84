"""Isolation, as a property: whatever memories exist and whatever requests arrive, the bytes
memtap sends upstream for owner B never contain a memory of owner A, and under
`memory.scope: session` never one of another session.

Drives the real engine (SQLite in a temp dir) and the memory addon's request path (retrieve +
inject) for all four formats; each memory carries a unique tag so a leak in the rewritten
body is visible whatever the format.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from multidict import CIMultiDict

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    Scope,
    VectorStoreConfig,
)
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import Memory, NewMemory
from memtap.proxy.addons.inject import InjectAddon
from memtap.proxy.appkeys import Runtime
from memtap.proxy.codecs.base import Codec
from memtap.proxy.codecs.registry import (
    ANTHROPIC,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)
from memtap.proxy.flow import Flow
from memtap.proxy.pipeline import Pipeline
from memtap.proxy.routing import Route

OWNERS = (
    "owner-aaaaaaaaaaaaaaaaaa",
    "owner-bbbbbbbbbbbbbbbbbb",
    "owner-cccccccccccccccccc",
)
SESSIONS = (None, "s1", "s2")
TOPICS = ("side projects", "analytics", "home lab", "work")

FORMATS: dict[str, tuple[Codec, str]] = {
    "openai-chat": (OPENAI_CHAT, "/v1/chat/completions"),
    "openai-responses": (OPENAI_RESPONSES, "/v1/responses"),
    "anthropic": (ANTHROPIC, "/v1/messages"),
    "gemini": (GEMINI, "/v1beta/models/gemini-2.5-flash:generateContent"),
}


def request_body(fmt: str, text: str) -> dict[str, Any]:
    if fmt == "openai-chat":
        return {"model": "gpt-4o", "messages": [{"role": "user", "content": text}]}
    if fmt == "openai-responses":
        return {"model": "gpt-4.1", "input": text}
    if fmt == "anthropic":
        return {
            "model": "claude",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": text}],
        }
    return {"contents": [{"role": "user", "parts": [{"text": text}]}]}


memories_strategy = st.lists(
    st.tuples(
        st.integers(0, len(OWNERS) - 1),
        st.sampled_from(SESSIONS),
        st.sampled_from(TOPICS),
    ),
    min_size=1,
    max_size=12,
)
requests_strategy = st.lists(
    st.tuples(
        st.integers(0, len(OWNERS) - 1),
        st.sampled_from(SESSIONS),
        st.sampled_from(TOPICS),
        st.sampled_from(sorted(FORMATS)),
    ),
    min_size=1,
    max_size=6,
)


async def scenario(
    data_dir: Path,
    scope: Scope,
    memories: list[tuple[int, str | None, str]],
    requests: list[tuple[int, str | None, str, str]],
) -> None:
    memory = dataclasses.replace(
        MemoryConfig(enabled=True, strategy="hybrid", scope=scope, max_items=50),
        max_tokens=4000,
    )
    config = Config(
        data_dir=str(data_dir),
        memory=memory,
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )
    holder = ConfigHolder(config, str(data_dir / "absent.yaml"))
    metrics = Metrics()
    engine = await open_engine(holder, metrics, start_worker=False)
    try:
        stored: list[Memory] = []
        for n, (owner, session, topic) in enumerate(memories):
            new = NewMemory(
                owner=OWNERS[owner],
                session=session,
                content=f"I prefer Postgres for {topic} (tag{n:03d}x)",
            )
            stored.append(await engine.create_memory(new))
        runtime = Runtime(
            config=holder, metrics=metrics, pipeline=Pipeline([]), engine=engine
        )
        addon = InjectAddon(runtime)
        for i, (owner, session, topic, fmt) in enumerate(requests):
            codec, path = FORMATS[fmt]
            flow = Flow(
                request_id=f"req-{i}",
                method="POST",
                route=Route("up", "http://up", path, "", "auto", 30.0, 10.0),
                request_headers=CIMultiDict(),
                body=orjson.dumps(
                    request_body(fmt, f"Should I use Postgres for {topic}?")
                ),
                owner_id=OWNERS[owner],
                session_id=session,
                codec=codec,
            )
            await addon.request(flow)
            assert flow.body is not None
            sent = flow.body.decode()

            def forbidden(
                m: Memory, owner: int = owner, session: str | None = session
            ) -> bool:
                other_session = m.session is not None and m.session != session
                return m.owner != OWNERS[owner] or (
                    scope == "session" and other_session
                )

            def own(
                m: Memory, owner: int = owner, session: str | None = session
            ) -> bool:
                return m.owner == OWNERS[owner] and (
                    scope != "session" or m.session == session
                )

            for n, m in enumerate(stored):
                if forbidden(m):
                    assert f"tag{n:03d}x" not in sent, (fmt, OWNERS[owner], session, m)
                    assert m.id not in flow.memory.injected_ids
            # Not vacuous: a request whose owner has memories in scope gets them injected.
            if any(own(m) for m in stored):
                assert flow.memory.injected_ids, (
                    fmt,
                    owner,
                    session,
                    flow.memory.skipped_reason,
                )
                assert flow.body_rewritten
            elif all(forbidden(m) for m in stored):
                assert not flow.memory.injected_ids
            assert flow.extra_response_headers["X-Memtap-Memories"] == str(
                len(flow.memory.injected_ids)
            )
    finally:
        await engine.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scope=st.sampled_from(["owner", "session"]),
    memories=memories_strategy,
    requests=requests_strategy,
)
@pytest.mark.slow
def test_no_memory_crosses_owner_or_session(
    scope: Scope,
    memories: list[tuple[int, str | None, str]],
    requests: list[tuple[int, str | None, str, str]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp), scope, memories, requests))
