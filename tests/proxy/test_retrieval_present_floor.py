"""Retrieval through the real admin API (retrieve-preview runs the proxy's own retrieval):
a short fact clearly about the question's subject passes the relevance floor while an
unrelated question still gets nothing (real ONNX embeddings, sqlite-vec); a question about
the present ranks the newest of conflicting facts first even when no slot links them, and
two conflicting live facts are never both returned (SQLite and Qdrant record stores)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest

from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    QdrantConfig,
    VectorStoreConfig,
)
from memtap.engine.clock import now_iso
from memtap.engine.retrieval.present import asks_about_present
from memtap.engine.types import NewMemory
from tests.conftest import MemtapServer
from tests.support.admin import OWNER, Admin, start_admin
from tests.support.standin import Standin


async def preview(admin: Admin, query: str) -> list[str]:
    reply = await admin.call(
        "POST", "/api/retrieve-preview", json={"owner": OWNER, "query": query}
    )
    assert reply.status == 200, reply.body
    return [r["content"] for r in reply.body["results"]]


async def test_a_short_fact_about_the_subject_passes_the_floor_and_unrelated_gets_nothing(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        memory=MemoryConfig(enabled=True, strategy="hybrid"),
        embedding=EmbeddingConfig(source="onnx"),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    for content in (
        "Prefers 2-space YAML",
        "Uses Terraform",
        "My dog is called Pixel",
        "I usually drink green tea in the morning",
        "Plays the cello",
        "Is allergic to shellfish",
    ):
        await admin.create(content=content)
    assert (await preview(admin, "How should I indent the Helm chart?"))[
        0
    ] == "Prefers 2-space YAML"
    # cosine 0.28, under memory.min_similarity (0.30), but far ahead of every other memory
    assert await preview(admin, "How should I provision the new cloud servers?") == [
        "Uses Terraform"
    ]
    for unrelated in (
        "Write a haiku about autumn leaves",
        "What is the capital of Australia?",
        "Summarize the plot of Hamlet",
    ):
        assert await preview(admin, unrelated) == [], unrelated


async def test_a_keyword_hit_sharing_only_a_common_verb_is_a_coincidence(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> None:
    admin = await start_admin(
        memtap_server,
        memtap_config,
        http,
        memory=MemoryConfig(enabled=True, strategy="hybrid"),
        embedding=EmbeddingConfig(source="onnx"),
        vector_store=VectorStoreConfig(kind="sqlite-vec"),
    )
    for content in ("I write tests first", "Works at Stripe"):
        await admin.create(content=content)
    # a task for the assistant that shares only "write" / "works" with a stored fact
    assert await preview(admin, "Write a haiku about autumn leaves") == []
    assert await preview(admin, "Explain how photosynthesis works") == []
    # the same words in a question about the user still find the fact
    assert await preview(admin, "Where do I work?") == ["Works at Stripe"]
    assert "I write tests first" in await preview(
        admin, "Do I write tests before the code?"
    )


@pytest.fixture(params=["sqlite", "qdrant"])
async def keyword_admin(
    request: pytest.FixtureRequest,
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    tmp_path: Path,
    standin: Standin,
) -> Admin:
    vector_store = (
        VectorStoreConfig(kind="none")
        if request.param == "sqlite"
        else VectorStoreConfig(
            kind="qdrant", qdrant=QdrantConfig(path=str(tmp_path / "q"))
        )
    )
    return await start_admin(
        memtap_server, memtap_config, http, vector_store=vector_store
    )


async def unlinked(admin: Admin, content: str, written: str) -> None:
    """A memory stored without a subject (as before slots existed): nothing links it."""
    new = NewMemory(
        owner=OWNER, content=content, created_at=written, updated_at=written
    )
    await admin.engine.store.upsert_memory(new, now_iso())


async def test_the_newest_of_unlinked_conflicting_facts_wins(
    keyword_admin: Admin,
) -> None:
    admin = keyword_admin
    await unlinked(admin, "Lives in Porto", "2026-11-20T10:00:00Z")
    await unlinked(admin, "Lives in Lisbon", "2026-03-01T10:00:00Z")
    await unlinked(admin, "Works at Stripe", "2026-11-01T10:00:00Z")
    await unlinked(admin, "I work at Google", "2025-06-01T10:00:00Z")
    await unlinked(admin, "My laptop is a ThinkPad", "2026-01-01T10:00:00Z")
    await unlinked(admin, "My laptop is a MacBook Air", "2026-11-25T10:00:00Z")
    await unlinked(admin, "My bike is a Trek road", "2026-02-01T10:00:00Z")
    await unlinked(admin, "My bike is a Canyon gravel", "2026-11-26T10:00:00Z")
    await unlinked(admin, "Is allergic to peanuts", "2026-01-01T10:00:00Z")
    await unlinked(admin, "Is allergic to shellfish", "2026-10-01T10:00:00Z")
    # slot conflicts: never both, whatever the question
    assert await preview(admin, "Where do I live these days?") == ["Lives in Porto"]
    assert await preview(admin, "where do I live?") == ["Lives in Porto"]
    assert await preview(admin, "Where do I work now?") == ["Works at Stripe"]
    assert await preview(admin, "What laptop do I have?") == [
        "My laptop is a MacBook Air"
    ]
    # no rule reads these: for a question about the present the older version is not current
    assert await preview(admin, "Which bike do I ride at the moment?") == [
        "My bike is a Canyon gravel"
    ]
    assert sorted(await preview(admin, "Which bike do I ride?")) == [
        "My bike is a Canyon gravel",
        "My bike is a Trek road",
    ]
    # two allergies are both true: neither replaces the other
    assert sorted(await preview(admin, "What am I still allergic to?")) == [
        "Is allergic to peanuts",
        "Is allergic to shellfish",
    ]


@pytest.mark.parametrize(
    "question",
    [
        "Where do I live now?",
        "What editor am I currently using?",
        "What do I eat these days?",
        "Do I still work at Acme?",
        "¿Dónde vivo ahora?",
        "¿Todavía trabajo en Acme?",
        "Onde moro atualmente?",
        "Ainda trabalho na Acme?",
        "Où est-ce que j'habite maintenant ?",
        "Je travaille toujours chez Acme ?",
        "Wo wohne ich jetzt?",
        "Arbeite ich derzeit bei Acme?",
    ],
)
def test_questions_about_the_present_in_five_languages(question: str) -> None:
    assert asks_about_present(question)


@pytest.mark.parametrize(
    "question",
    ["Where did I live in 2019?", "What editor do I like?", "Wo habe ich gewohnt?"],
)
def test_other_questions_are_not_about_the_present(question: str) -> None:
    assert not asks_about_present(question)
