"""End users behind one key, on flows from `tflow()` and a real engine (no network): the
owner rule, where each format names its end user, `memory.user_from` precedence, the body
never changed for it, `memory.users: required` (no memory, counted, said), the raw ID kept
nowhere on the flow, and the header redacted from any log line."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from multidict import CIMultiDict

from memtap.config.errors import ConfigError
from memtap.config.holder import ConfigHolder
from memtap.config.loader import parse_config
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    VectorStoreConfig,
)
from memtap.config.settings import apply_overrides
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import NewMemory
from memtap.proxy.addons.capture import CaptureAddon
from memtap.proxy.addons.end_user import NO_END_USER
from memtap.proxy.addons.inject import InjectAddon
from memtap.proxy.appkeys import Runtime
from memtap.proxy.codecs.end_user import body_end_user
from memtap.proxy.flow import Flow
from memtap.proxy.headers import (
    owner_id_for_key,
    read_memtap_headers,
    upstream_request_headers,
)
from memtap.proxy.logs import REDACTED, redact
from memtap.proxy.owners import (
    chosen_end_user,
    end_user_owner,
    is_owner_id,
    key_owner_of,
    user_tag,
)
from memtap.proxy.pipeline import Pipeline
from tests.support.flows import API_KEY, chat_body, give_body, tflow

KEY_OWNER = owner_id_for_key(API_KEY)
ALICE = "alice@example.com"
BOB = "user-8841"


def owner_for(user: str) -> str:
    """The contract's rule, written out: key owner, colon, first 16 hex of sha256(ID)."""
    return f"{KEY_OWNER}:{hashlib.sha256(user.encode()).hexdigest()[:16]}"


# -- the owner rule ----------------------------------------------------------------------


def test_an_end_users_owner_is_the_keys_owner_and_a_tag_of_the_id() -> None:
    assert user_tag(ALICE) == hashlib.sha256(ALICE.encode()).hexdigest()[:16]
    assert user_tag(f"  {ALICE} ") == user_tag(ALICE)  # spaces around do not count
    assert user_tag("Alice@example.com") != user_tag(ALICE)  # otherwise exact
    owner = end_user_owner(KEY_OWNER, user_tag(ALICE))
    assert owner == owner_for(ALICE) and len(owner) == 24 + 1 + 16
    assert is_owner_id(owner)  # the admin API, MCP and CLI take it
    assert key_owner_of(owner) == KEY_OWNER
    assert key_owner_of(KEY_OWNER) is None
    assert key_owner_of("alice") is None and key_owner_of(":x") is None
    # A lone surrogate (a header or body may carry one) still hashes.
    assert len(user_tag("a\udc80b")) == 16


def test_precedence_follows_user_from() -> None:
    assert chosen_end_user(("header", "body"), "h", "b") == ("header", "h")
    assert chosen_end_user(("body", "header"), "h", "b") == ("body", "b")
    assert chosen_end_user(("header", "body"), None, "b") == ("body", "b")
    assert chosen_end_user(("header",), None, "b") is None
    assert chosen_end_user((), "h", "b") is None


def test_the_header_is_read_as_a_tag_and_never_goes_upstream() -> None:
    headers = CIMultiDict(
        {"X-Memtap-User": f" {ALICE} ", "Authorization": "Bearer k", "X-Other": "1"}
    )
    read = read_memtap_headers(headers)
    assert read.user_tag == user_tag(ALICE)
    assert ALICE not in repr(read)
    upstream = upstream_request_headers(headers, "api.test")
    assert "X-Memtap-User" not in upstream and upstream["X-Other"] == "1"
    assert read_memtap_headers(CIMultiDict({"X-Memtap-User": "  "})).user_tag is None


@pytest.mark.parametrize(
    ("fmt", "body", "expected"),
    [
        ("openai-chat", {"user": BOB}, BOB),
        ("openai-chat", {"safety_identifier": ALICE, "user": BOB}, ALICE),
        ("openai-chat", {"safety_identifier": "", "user": BOB}, BOB),
        ("openai-chat", {"user": 42}, None),
        ("openai-responses", {"safety_identifier": ALICE}, ALICE),
        ("openai-responses", {"user": BOB}, BOB),
        ("anthropic", {"metadata": {"user_id": ALICE}}, ALICE),
        ("anthropic", {"metadata": "x", "user": BOB}, None),  # not Anthropic's field
        ("anthropic", {"metadata": {"user_id": None}}, None),
        ("gemini", {"user": BOB, "metadata": {"user_id": ALICE}}, None),  # header only
        ("openai-chat", ["not", "an", "object"], None),
    ],
)
def test_where_each_format_names_its_end_user(
    fmt: Any, body: Any, expected: str | None
) -> None:
    assert body_end_user(fmt, body) == expected


# -- on the flow -------------------------------------------------------------------------


def test_the_handler_makes_the_header_user_the_owner() -> None:
    flow = tflow(body=chat_body("hi"), headers={"X-Memtap-User": ALICE})
    assert flow.owner_id == owner_for(ALICE)
    assert flow.key_owner_id == KEY_OWNER and flow.end_user == "header"
    assert "X-Memtap-User" not in flow.request_headers
    assert ALICE not in repr(flow)  # the raw ID is nowhere on the flow
    # [body]: the header is not read (and still stripped).
    body_only = tflow(
        body=chat_body("hi"), headers={"X-Memtap-User": ALICE}, user_from=("body",)
    )
    assert body_only.owner_id == KEY_OWNER and body_only.end_user is None
    assert "X-Memtap-User" not in body_only.request_headers
    # No key, no owner: an end user alone names nobody's memory.
    keyless = tflow(
        body=chat_body("hi"), api_key=None, headers={"X-Memtap-User": ALICE}
    )
    assert keyless.owner_id is None and keyless.end_user is None


def _config(tmp_path: Path, **memory: Any) -> Config:
    return Config(
        data_dir=str(tmp_path / "data"),
        memory=dataclasses.replace(
            MemoryConfig(enabled=True, strategy="recent", scope="owner"), **memory
        ),
        embedding=EmbeddingConfig(source="none"),
        vector_store=VectorStoreConfig(kind="none"),
    )


@pytest.fixture
async def make_runtime(tmp_path: Path) -> AsyncIterator[Any]:
    """`await make_runtime(**memory)`: a Runtime over a real engine (SQLite in tmp_path)."""
    opened: list[Any] = []

    async def make(**memory: Any) -> Runtime:
        holder = ConfigHolder(_config(tmp_path, **memory), str(tmp_path / "x.yaml"))
        metrics = Metrics()
        engine = await open_engine(holder, metrics, start_worker=False)
        opened.append(engine)
        return Runtime(
            config=holder, metrics=metrics, pipeline=Pipeline(()), engine=engine
        )

    yield make
    for engine in opened:
        await engine.close()


async def _through(
    runtime: Runtime,
    body: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    path: str = "/v1/chat/completions",
) -> Flow:
    """The memory addons' way in, as the handler runs it."""
    memory = runtime.config.current.memory
    flow = tflow(path, body=body, headers=headers, user_from=memory.user_from)
    inject, capture = InjectAddon(runtime), CaptureAddon(runtime)
    await inject.request_headers(flow)
    if flow.read_body:
        give_body(flow, body)
    await inject.request(flow)
    await capture.request(flow)
    return flow


async def _seed(runtime: Runtime, owner: str, content: str) -> None:
    assert runtime.engine is not None
    await runtime.engine.create_memory(NewMemory(owner=owner, content=content))


async def test_the_body_names_the_owner_and_stays_as_sent(make_runtime: Any) -> None:
    runtime = await make_runtime()
    await _seed(runtime, owner_for(ALICE), "Alice keeps bees")
    await _seed(runtime, owner_for(BOB), "Bob restores old radios")
    await _seed(runtime, KEY_OWNER, "the app itself is called Hive")

    body = {**chat_body("What do I do on weekends?"), "user": ALICE}
    flow = await _through(runtime, body)
    assert flow.owner_id == owner_for(ALICE) and flow.end_user == "body"
    sent = orjson.loads(flow.body or b"")
    text = orjson.dumps(sent).decode()
    assert "bees" in text and "radios" not in text and "Hive" not in text
    assert sent["user"] == ALICE  # the field goes upstream as the app sent it

    # Anthropic's metadata.user_id, the same person.
    anthropic = {
        "model": "claude",
        "max_tokens": 10,
        "metadata": {"user_id": BOB},
        "messages": [{"role": "user", "content": "Any hobby of mine?"}],
    }
    flow = await _through(runtime, anthropic, path="/v1/messages")
    assert flow.owner_id == owner_for(BOB)
    assert "radios" in (flow.body or b"").decode()
    assert orjson.loads(flow.body or b"")["metadata"] == {"user_id": BOB}

    # Nobody named: the key's own owner, which sees none of its users' memories.
    flow = await _through(runtime, chat_body("What is the app called?"))
    assert flow.owner_id == KEY_OWNER and flow.end_user is None
    text = (flow.body or b"").decode()
    assert "Hive" in text and "bees" not in text and "radios" not in text


async def test_the_header_wins_unless_user_from_says_otherwise(
    make_runtime: Any,
) -> None:
    runtime = await make_runtime()
    body = {**chat_body("hello"), "safety_identifier": BOB}
    flow = await _through(runtime, body, headers={"X-Memtap-User": ALICE})
    assert flow.owner_id == owner_for(ALICE) and flow.end_user == "header"

    runtime.config.apply_runtime_overrides({"memory.user_from": ["body", "header"]})
    flow = await _through(runtime, body, headers={"X-Memtap-User": ALICE})
    assert flow.owner_id == owner_for(BOB) and flow.end_user == "body"
    flow = await _through(runtime, chat_body("hello"), headers={"X-Memtap-User": ALICE})
    assert flow.owner_id == owner_for(ALICE) and flow.end_user == "header"

    runtime.config.apply_runtime_overrides({"memory.user_from": ["header"]})
    flow = await _through(runtime, body)
    assert flow.owner_id == KEY_OWNER and flow.end_user is None


async def test_required_without_an_end_user_gets_no_memory(make_runtime: Any) -> None:
    runtime = await make_runtime(users="required")
    await _seed(runtime, KEY_OWNER, "the app itself is called Hive")
    skipped = runtime.metrics.memory_skipped

    # The body could name one: it is read, names none, and memory stays out.
    body = chat_body("What is the app called?")
    flow = await _through(runtime, body, headers={"Accept-Encoding": "br, gzip"})
    assert flow.memory.skipped_reason == NO_END_USER
    assert flow.codec is None and flow.memory.conversation is None  # no extraction
    assert flow.body == orjson.dumps(body) and not flow.body_rewritten
    assert flow.extra_response_headers == {}  # no X-Memtap-Memories: not through memory
    assert flow.request_headers["Accept-Encoding"] == "br, gzip"  # untouched
    assert flow.memories_injected is None
    assert skipped.value(NO_END_USER) == 1

    # Only the header can name one: decided before the body, which is not even read.
    runtime.config.apply_runtime_overrides({"memory.user_from": ["header"]})
    flow = await _through(runtime, {**body, "user": ALICE})
    assert flow.memory.skipped_reason == NO_END_USER and not flow.read_body
    assert flow.body is None  # streamed upstream as it came
    assert skipped.value(NO_END_USER) == 2

    # Named: memory as usual, the person's own.
    await _seed(runtime, owner_for(ALICE), "Alice keeps bees")
    flow = await _through(runtime, body, headers={"X-Memtap-User": ALICE})
    assert flow.memory.skipped_reason is None and flow.memory.injected_ids
    assert "bees" in (flow.body or b"").decode()
    assert skipped.value(NO_END_USER) == 2
    assert f'memtap_memory_skipped_total{{reason="{NO_END_USER}"}} 2' in (
        runtime.metrics.render()
    )


async def test_global_scope_does_not_cross_end_users(make_runtime: Any) -> None:
    runtime = await make_runtime(scope="global")
    await _seed(runtime, owner_for(ALICE), "Alice keeps bees")
    await _seed(runtime, owner_for(BOB), "Bob restores old radios")
    flow = await _through(
        runtime, chat_body("hobbies?"), headers={"X-Memtap-User": ALICE}
    )
    text = (flow.body or b"").decode()
    assert "bees" in text and "radios" not in text


# -- configuration and logs --------------------------------------------------------------


def test_the_config_keys_are_checked() -> None:
    memory = parse_config({"memory": {"users": "required"}}, source="t").memory
    assert memory.users == "required" and memory.user_from == ("header", "body")
    for bad, path in (
        ({"users": "always"}, "memory.users"),
        ({"user_from": ["header", "header"]}, "memory.user_from"),
        ({"user_from": ["cookie"]}, "memory.user_from[0]"),
        ({"users": "required", "user_from": []}, "memory.user_from"),
    ):
        with pytest.raises(ConfigError) as caught:
            parse_config({"memory": bad}, source="t")
        assert caught.value.errors[0].path == path
    # Runtime settings, converted and checked like the file.
    changed = apply_overrides(
        Config(), {"memory.users": "required", "memory.user_from": ["body"]}
    )
    assert changed.memory.users == "required" and changed.memory.user_from == ("body",)
    with pytest.raises(ConfigError):
        apply_overrides(Config(), {"memory.users": "sometimes"})


def test_the_header_is_redacted_from_a_log_line() -> None:
    for line in (
        f'{{"headers": {{"X-Memtap-User": "{ALICE}"}}}}',
        f"x-memtap-user: {ALICE}",
        f"[('X-Memtap-User', '{ALICE}')]",
    ):
        redacted = redact(line)
        assert ALICE not in redacted and REDACTED in redacted
