"""What the vector leg embeds of a request's query (`engine/embeddings/query_text.py`): the
tail of a long message, cut at a word, so a local model's cost per request stays bounded."""

from __future__ import annotations

from pathlib import Path

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    RemoteEmbeddingConfig,
    VectorStoreConfig,
)
from memtap.engine.embeddings.query_text import QUERY_EMBED_CHARS, query_tail
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import NewMemory, RetrievalRequest
from tests.support.semantic import EmbeddingsServer

LONG = (
    "I have been going through the notes from yesterday's planning meeting and trying to "
    "work out what to do first next week, since the release slipped and the team wants a "
    "clear order of work. There is also the question of the budget review on Thursday. "
    "Anyway, before I forget: which tea do I like best?"
)


def test_short_queries_are_embedded_whole() -> None:
    assert query_tail("  which tea do I like best?  ") == "which tea do I like best?"


def test_a_long_query_keeps_its_end_from_a_word_boundary() -> None:
    tail = query_tail(LONG)
    assert len(tail) <= QUERY_EMBED_CHARS
    assert tail.endswith("which tea do I like best?")
    assert LONG.endswith(tail) and LONG[-len(tail) - 1] == " "  # whole words only
    assert (
        query_tail("x" * 500) == "x" * QUERY_EMBED_CHARS
    )  # one long token: cut anyway


async def test_the_vector_leg_embeds_the_tail_and_the_keyword_leg_reads_all(
    tmp_path: Path,
) -> None:
    async with EmbeddingsServer() as server:
        config = Config(
            data_dir=str(tmp_path),
            memory=MemoryConfig(strategy="hybrid", min_similarity=-1.0),
            embedding=EmbeddingConfig(
                source="remote",
                timeout_ms=2000,
                remote=RemoteEmbeddingConfig(url=server.url, model="m", timeout_s=2.0),
            ),
            vector_store=VectorStoreConfig(kind="sqlite-vec"),
        )
        engine = await open_engine(ConfigHolder(config), Metrics())
        try:
            await engine.create_memory(
                NewMemory(owner="gina", content="The budget review moved to Friday")
            )
            server.requests.clear()
            got = await engine.retrieve(RetrievalRequest(owner="gina", query=LONG))
            embedded = [text for body in server.requests for text in body["input"]]  # type: ignore[union-attr]
            assert embedded == [query_tail(LONG)]
            # "budget review" is only in the head of the message: the keyword leg saw it.
            assert got.hits and got.hits[0].fts_rank == 1
        finally:
            await engine.close()
