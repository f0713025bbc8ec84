"""Isolation of end users behind shared keys, as a property: whatever memories the end users
of a few keys have, whatever requests arrive (naming their end user by the X-Memtap-User
header or by the body's own field, in every format, under every scope and session), the
bytes memtap sends upstream for one end user never carry another's memory; and erasing one
end user removes exactly what was stored for them (the receipt's counts), nothing of anyone
else.

Drives the real engine (SQLite in a temp dir) and the proxy's own owner resolution: the
handler's `new_flow` (header) and the inject addon's way in (body, retrieval, placement).
Owners are computed here by the contract's rule, not by memtap's code.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
from memtap.engine.types import ListQuery, Memory, NewMemory
from memtap.proxy.addons.inject import InjectAddon
from memtap.proxy.appkeys import Runtime
from memtap.proxy.pipeline import Pipeline
from tests.support.flows import give_body, tflow

KEYS = ("sk-shared-app-one-0001", "sk-shared-app-two-0002")
USERS = (None, "alice@example.com", "bob", "9981")
"""None: the request names no end user (the key's own owner)."""
SESSIONS = (None, "s1", "s2")
TOPICS = ("side projects", "analytics", "home lab")
FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini")
PATHS = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/gemini-2.5-flash:generateContent",
}


def owner_of(key: int, user: int) -> str:
    """The contract: sha256(key)[:24], then `:` and sha256(ID)[:16] for an end user."""
    base = hashlib.sha256(KEYS[key].encode()).hexdigest()[:24]
    name = USERS[user]
    if name is None:
        return base
    return f"{base}:{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def request_body(fmt: str, text: str, user: str | None, field: int) -> dict[str, Any]:
    """A request of `fmt`; with `user`, named in the body's own field (`field` picks
    OpenAI's `safety_identifier` or `user`)."""
    if fmt == "openai-chat":
        body: dict[str, Any] = {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": text}],
        }
    elif fmt == "openai-responses":
        body = {"model": "gpt-4.1", "input": text}
    elif fmt == "anthropic":
        body = {
            "model": "claude",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": text}],
        }
    else:
        body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    if user is not None:
        if fmt == "anthropic":
            body["metadata"] = {"user_id": user}
        elif fmt != "gemini":
            body[("safety_identifier", "user")[field]] = user
    return body


Stored = tuple[int, int, str | None, str]
"""(key, user, session, topic) of a memory."""
Sent = tuple[int, int, str | None, str, str, bool, int]
"""(key, user, session, topic, format, by header, body field) of a request."""

memories_strategy = st.lists(
    st.tuples(
        st.integers(0, len(KEYS) - 1),
        st.integers(0, len(USERS) - 1),
        st.sampled_from(SESSIONS),
        st.sampled_from(TOPICS),
    ),
    min_size=1,
    max_size=10,
)
requests_strategy = st.lists(
    st.tuples(
        st.integers(0, len(KEYS) - 1),
        st.integers(0, len(USERS) - 1),
        st.sampled_from(SESSIONS),
        st.sampled_from(TOPICS),
        st.sampled_from(FORMATS),
        st.booleans(),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=5,
)


async def one_request(
    addon: InjectAddon, request: Sent, scope: Scope, stored: list[Memory]
) -> None:
    key, user, session, topic, fmt, by_header, field = request
    name = USERS[user]
    # Gemini has no body field: it names its end user by the header only.
    header = name is not None and (by_header or fmt == "gemini")
    body = request_body(
        fmt, f"Should I use Postgres for {topic}?", None if header else name, field
    )
    headers = {"X-Memtap-User": name} if header and name is not None else {}
    if session is not None:
        headers["X-Memtap-Session"] = session
    flow = tflow(PATHS[fmt], body=body, api_key=KEYS[key], headers=headers)
    await addon.request_headers(flow)
    assert flow.read_body
    give_body(flow, body)
    await addon.request(flow)
    owner = owner_of(key, user)
    assert flow.owner_id == owner
    assert "X-Memtap-User" not in flow.request_headers
    sent = (flow.body or b"").decode()
    if name is not None and not header:
        assert name in sent  # the body's own field went on as sent

    def visible(m: Memory) -> bool:
        if scope == "global" and name is None:
            return True  # every owner's, by configuration (single-user setups)
        same_session = m.session is None or m.session == session
        return m.owner == owner and (scope != "session" or same_session)

    for n, m in enumerate(stored):
        if not visible(m):
            assert f"tag{n:03d}x" not in sent, (request, scope, m.owner)
            assert m.id not in flow.memory.injected_ids
    # Not vacuous: a request whose own memories are in scope gets them.
    own = [
        m
        for m in stored
        if m.owner == owner and (scope != "session" or m.session == session)
    ]
    if own:
        assert flow.memory.injected_ids, (request, scope, flow.memory.skipped_reason)


async def scenario(
    data_dir: Path,
    scope: Scope,
    memories: list[Stored],
    requests: list[Sent],
    erased: tuple[int, int],
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
        for n, (key, user, session, topic) in enumerate(memories):
            new = NewMemory(
                owner=owner_of(key, user),
                session=session,
                content=f"I prefer Postgres for {topic} (tag{n:03d}x)",
            )
            stored.append(await engine.create_memory(new))
        runtime = Runtime(
            config=holder, metrics=metrics, pipeline=Pipeline([]), engine=engine
        )
        addon = InjectAddon(runtime)
        for request in requests:
            await one_request(addon, request, scope, stored)

        # Erase one end user: exactly theirs goes, the receipt says how much.
        owners = {owner_of(k, u) for k in range(len(KEYS)) for u in range(len(USERS))}
        before = {o: await count(engine, o) for o in owners}
        victim = owner_of(*erased)
        receipt = await engine.erase_owner(victim)
        assert receipt.owner == victim
        assert receipt.removed["memories"] == sum(m.owner == victim for m in stored)
        assert before[victim] == receipt.removed["memories"]
        for owner in owners:
            expected = 0 if owner == victim else before[owner]
            assert await count(engine, owner) == expected, owner
    finally:
        await engine.close()


async def count(engine: Any, owner: str) -> int:
    # Superseded rows too: an erase removes every row of the owner, history included.
    query = ListQuery(owner=owner, limit=1, include_superseded=True)
    page = await engine.list_memories(query)
    return int(page.total)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scope=st.sampled_from(["owner", "session", "global"]),
    memories=memories_strategy,
    requests=requests_strategy,
    erased=st.tuples(st.integers(0, len(KEYS) - 1), st.integers(1, len(USERS) - 1)),
)
def test_no_end_user_carries_anothers_memory_and_erase_takes_exactly_theirs(
    scope: Scope,
    memories: list[Stored],
    requests: list[Sent],
    erased: tuple[int, int],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp), scope, memories, requests, erased))
