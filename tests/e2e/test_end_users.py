"""End users behind one key, end to end: a real `memtap serve` (a child process, its JSON log
on stderr, its SQLite files in tmp_path) in front of the provider stand-in, the official
SDKs as the app, all with ONE API key:

- the openai SDK's `user=` and `safety_identifier=` (Chat Completions and Responses), the
  anthropic SDK's `metadata={"user_id": ...}`, and the `X-Memtap-User` header (Gemini has no
  body field) each make the person's own owner, `KEYOWNER:sha256(ID)[:16]`; what one person
  said is injected into that person's next request and nobody else's; the header does not
  go upstream, the body's field does, unchanged;
- `memory.users: required`: a request that names no end user is proxied byte for byte, gets
  no memory and teaches none, and is counted and logged with its reason;
- one person among several of the key is erased with one `DELETE /_memtap/api/owners/...`
  (the receipt counts what was stored), the others and the key's own owner keep theirs;
- the raw IDs are in no file of the data dir and in no log line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import anthropic
import openai
import pytest

from memtap.engine.memory_block import OPEN
from tests.conftest import MemtapProcess
from tests.support.standin import Standin

pytestmark = pytest.mark.timeout(240)

KEY = "sk-shared-app-key-" + uuid.uuid4().hex[:12]
KEY_OWNER = hashlib.sha256(KEY.encode()).hexdigest()[:24]
ProcessFactory = Callable[..., Awaitable[MemtapProcess]]


def person(label: str) -> str:
    """A raw end-user ID unique to this run, so a grep for it cannot hit anything else."""
    return f"{label}-{uuid.uuid4().hex[:10]}@example.com"


def owner_of(user: str) -> str:
    """The contract's owner of an end user behind KEY."""
    return f"{KEY_OWNER}:{hashlib.sha256(user.encode()).hexdigest()[:16]}"


async def start(memtap_process: ProcessFactory, **memory: Any) -> MemtapProcess:
    return await memtap_process(
        {
            "memory": {
                "enabled": True,
                "strategy": "recent",  # every own memory is injected, whatever is asked
                "scope": "owner",
                "retrieval_timeout_ms": 3000,
                **memory,
            },
            "embedding": {"source": "none"},
            "vector_store": {"kind": "none"},
            "log": {"format": "json", "level": "debug"},
        }
    )


async def api(
    proc: MemtapProcess, method: str, path: str, **params: str
) -> tuple[int, Any]:
    """The admin API (loopback, no token configured)."""
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, f"{proc.url}/_memtap{path}", params=params) as response,
    ):
        text = await response.text()
        try:
            return response.status, json.loads(text)
        except json.JSONDecodeError:
            return response.status, text


async def memories_of(proc: MemtapProcess, owner: str) -> list[str]:
    status, body = await api(proc, "GET", "/api/memories", owner=owner, limit="100")
    assert status == 200, body
    return [item["content"] for item in body["items"]]


async def wait_for_memory(proc: MemtapProcess, owner: str, needle: str) -> list[str]:
    deadline = asyncio.get_running_loop().time() + 60
    while True:
        contents = await memories_of(proc, owner)
        if any(needle.lower() in c.lower() for c in contents):
            return contents
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no memory with {needle!r} for {owner}: {contents}")
        await asyncio.sleep(0.05)


async def metric(proc: MemtapProcess, line_start: str) -> float:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{proc.url}/_memtap/metrics") as response,
    ):
        text = await response.text()
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# -- one SDK call per way of naming the person --------------------------------------------


def openai_client(proc: MemtapProcess, headers: dict[str, str]) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=f"{proc.url}/v1", api_key=KEY, max_retries=0, default_headers=headers
    )


async def chat(proc: MemtapProcess, text: str, **named: Any) -> str:
    """OpenAI Chat Completions; `named` is `user=`, `safety_identifier=` or `headers=`."""
    headers = named.pop("headers", {})
    async with openai_client(proc, headers) as client:
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": text}],
            **named,
        )
        assert raw.parse().choices[0].message.content
        return raw.headers.get("X-Memtap-Memories", "")


async def responses(
    proc: MemtapProcess, standin: Standin, text: str, safety_identifier: str
) -> str:
    standin.enqueue_fixture("openai-responses", "non_stream_json")
    async with openai_client(proc, {}) as client:
        raw = await client.responses.with_raw_response.create(
            model="gpt-4.1", input=text, safety_identifier=safety_identifier
        )
        assert raw.parse().output_text
        return raw.headers.get("X-Memtap-Memories", "")


async def messages(proc: MemtapProcess, text: str, user_id: str, stream: bool) -> str:
    client = anthropic.AsyncAnthropic(base_url=proc.url, api_key=KEY, max_retries=0)
    async with client:
        kwargs: Any = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "metadata": {"user_id": user_id},
            "messages": [{"role": "user", "content": text}],
        }
        if stream:
            async with client.messages.with_streaming_response.create(
                **kwargs, stream=True
            ) as response:
                kinds = [event.type async for event in await response.parse()]
                assert kinds[-1] == "message_stop"
                return response.headers.get("X-Memtap-Memories", "")
        raw = await client.messages.with_raw_response.create(**kwargs)
        assert (await raw.parse()).content
        return raw.headers.get("X-Memtap-Memories", "")


async def gemini(proc: MemtapProcess, standin: Standin, text: str, user: str) -> str:
    case = standin.enqueue_fixture("gemini", "generate_content_json")
    body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{proc.url}/v1beta/models/gemini-2.5-flash:generateContent",
            json=body,
            headers={"x-goog-api-key": KEY, "X-Memtap-User": user},
        ) as response,
    ):
        assert response.status == 200
        assert await response.read() == case.body
        return response.headers.get("X-Memtap-Memories", "")


def injected(body: bytes) -> str:
    """The text of memtap's block in an upstream body ("" when there is none)."""
    text = body.decode()
    return text[text.index(OPEN) :] if OPEN in text else ""


# -- the tests ----------------------------------------------------------------------------

PEOPLE = {
    # label: (what they say, the word only their memory holds)
    "chat-user": ("I prefer Postgres for side projects.", "postgres"),
    "chat-safety": ("I prefer MySQL for side projects.", "mysql"),
    "responses": ("I prefer Redis for side projects.", "redis"),
    "anthropic": ("I prefer SQLite for side projects.", "sqlite"),
    "header": ("I prefer MariaDB for side projects.", "mariadb"),
}
QUESTION = "Which database should I pick for my next side project?"


async def say(
    proc: MemtapProcess, standin: Standin, label: str, user: str, text: str
) -> str:
    """One turn of `user`, named the way `label` says."""
    if label == "chat-user":
        return await chat(proc, text, user=user)
    if label == "chat-safety":
        return await chat(proc, text, safety_identifier=user)
    if label == "responses":
        return await responses(proc, standin, text, user)
    if label == "anthropic":
        return await messages(proc, text, user, stream=True)
    return await gemini(proc, standin, text, user)


async def test_each_sdk_names_its_person_and_each_person_remembers_alone(
    memtap_process: ProcessFactory, standin: Standin
) -> None:
    proc = await start(memtap_process)
    users = {label: person(label) for label in PEOPLE}

    for label, (statement, _) in PEOPLE.items():
        assert await say(proc, standin, label, users[label], statement) == "0"
        sent = standin.last()
        assert "x-memtap-user" not in {name.lower() for name in sent.headers}
        if label in ("chat-user", "chat-safety", "responses"):
            field = "user" if label == "chat-user" else "safety_identifier"
            assert sent.json()[field] == users[label]  # the app's field, as sent
        elif label == "anthropic":
            assert sent.json()["metadata"] == {"user_id": users[label]}
    for label, (_, word) in PEOPLE.items():
        await wait_for_memory(proc, owner_of(users[label]), word)
    assert await memories_of(proc, KEY_OWNER) == []  # nothing under the bare key

    # Each person's next request carries their own memory and nobody else's.
    for label, (_, word) in PEOPLE.items():
        assert int(await say(proc, standin, label, users[label], QUESTION)) >= 1
        block = injected(standin.last().body).lower()
        assert word in block, (label, block)
        others = [w for other, (_, w) in PEOPLE.items() if other != label]
        assert not any(w in block for w in others), (label, block)
    # The key with no person named sees none of them.
    assert await chat(proc, QUESTION) == "0"
    assert OPEN not in standin.last().body.decode()

    # The request log and the owners list name the composite owners, never an ID.
    status, log = await api(proc, "GET", "/api/requests", limit="100")
    assert status == 200
    logged = {item["owner"] for item in log["items"]}
    assert {owner_of(u) for u in users.values()} | {KEY_OWNER} == logged
    status, owners = await api(proc, "GET", "/api/owners")
    by_owner = {item["owner"]: item for item in owners["items"]}
    for user in users.values():
        assert by_owner[owner_of(user)]["key_owner"] == KEY_OWNER
        assert by_owner[owner_of(user)]["live"] >= 1

    # The raw IDs are nowhere: not in a file of the data dir, not in the log.
    data_dir = Path(proc.config_path).parent / "data"
    assert await proc.terminate() == 0
    raws = list(users.values())
    assert files_containing(data_dir, raws) == []
    log_text = proc.stderr_text()
    assert any(e["event"] == "request.done" for e in proc.log_events())
    assert owner_of(users["header"]) in log_text  # the owner is logged, the ID is not
    assert [u for u in raws if u in log_text] == []


def files_containing(data_dir: Path, needles: list[str]) -> list[str]:
    """Files under data_dir holding any needle (UTF-8 or UTF-16)."""
    patterns = [p for n in needles for p in (n.encode(), n.encode("utf-16-le"))]
    found = []
    for path in sorted(data_dir.rglob("*")):
        if path.is_file() and any(p in path.read_bytes() for p in patterns):
            found.append(str(path.relative_to(data_dir)))
    assert any(data_dir.rglob("*.db")) or any(data_dir.rglob("*.sqlite*")), (
        "the data dir holds the database"
    )
    return found


async def test_required_gives_no_memory_to_a_request_naming_no_one(
    memtap_process: ProcessFactory, standin: Standin
) -> None:
    proc = await start(memtap_process, users="required")
    alice = person("alice")
    status, _ = await api(proc, "GET", "/api/settings")
    assert status == 200

    # Nobody named: proxied byte for byte, no memory header, nothing learned.
    raw = json.dumps(
        {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "I prefer tabs over spaces."}],
        },
        separators=(", ", ": "),  # not how memtap would write it: a rewrite would show
    ).encode()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{proc.url}/v1/chat/completions",
            data=raw,
            headers={
                "Authorization": f"Bearer {KEY}",
                "Content-Type": "application/json",
                "Accept-Encoding": "br, gzip",
            },
        ) as response,
    ):
        assert response.status == 200
        await response.read()
        assert "X-Memtap-Memories" not in response.headers
    upstream = standin.last()
    assert upstream.body == raw
    assert upstream.headers["Accept-Encoding"] == "br, gzip"  # untouched too
    skipped = 'memtap_memory_skipped_total{reason="no_end_user"}'
    assert await metric(proc, skipped) == 1

    # The same through the SDK; then a named person's turn is learned as usual.
    assert await chat(proc, "I usually deploy on Fridays.") == ""
    assert await metric(proc, skipped) == 2
    assert await chat(proc, "I prefer Postgres for side projects.", user=alice) == "0"
    await wait_for_memory(proc, owner_of(alice), "postgres")
    assert int(await chat(proc, QUESTION, user=alice)) >= 1
    assert "Postgres" in injected(standin.last().body)
    # The unnamed turns, queued before alice's, taught nothing to anyone.
    assert await memories_of(proc, KEY_OWNER) == []
    assert await metric(proc, skipped) == 2

    status, log = await api(proc, "GET", "/api/requests", limit="10")
    reasons = [item["skipped_reason"] for item in log["items"]]
    assert reasons.count("no_end_user") == 2
    done = [e for e in proc.log_events() if e["event"] == "request.done"]
    assert [e.get("skipped_reason") for e in done].count("no_end_user") == 2
    assert all(
        e["owner"] == KEY_OWNER
        for e in done
        if e.get("skipped_reason") == "no_end_user"
    )


async def test_one_person_among_several_of_the_key_is_erased(
    memtap_process: ProcessFactory, standin: Standin
) -> None:
    proc = await start(memtap_process)
    users = [person("ana"), person("ben"), person("cy")]
    facts = ["Postgres", "MySQL", "Redis"]
    for user, fact in zip(users, facts, strict=True):
        await chat(proc, f"I prefer {fact} for side projects.", user=user)
        await chat(proc, "I usually deploy on Fridays.", safety_identifier=user)
    for user, fact in zip(users, facts, strict=True):
        await wait_for_memory(proc, owner_of(user), fact)
        await wait_for_memory(proc, owner_of(user), "fridays")
    await chat(proc, "I prefer Mongo for side projects.")  # the key itself
    await wait_for_memory(proc, KEY_OWNER, "mongo")
    stored = {o: await memories_of(proc, o) for o in map(owner_of, users)}

    victim = owner_of(users[1])
    status, exported = await api(proc, "GET", f"/api/owners/{victim}/export")
    assert status == 200 and "MySQL" in exported
    status, receipt = await api(proc, "DELETE", f"/api/owners/{victim}")
    assert status == 200, receipt
    assert receipt["owner"] == victim
    assert receipt["removed"]["memories"] == len(stored[victim])
    assert receipt["removed"]["requests_logged"] == 2

    assert await memories_of(proc, victim) == []
    for user in (users[0], users[2]):
        assert await memories_of(proc, owner_of(user)) == stored[owner_of(user)]
    assert await memories_of(proc, KEY_OWNER) != []
    assert await chat(proc, QUESTION, user=users[1]) == "0"  # forgotten
    assert int(await chat(proc, QUESTION, user=users[0])) >= 1

    # Erasing the key's own owner erases exactly that owner: its people keep theirs.
    status, receipt = await api(proc, "DELETE", f"/api/owners/{KEY_OWNER}")
    assert status == 200 and receipt["removed"]["memories"] >= 1
    assert await memories_of(proc, KEY_OWNER) == []
    assert await memories_of(proc, owner_of(users[2])) == stored[owner_of(users[2])]
