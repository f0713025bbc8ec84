"""Episode snippets in retrieval: sentence windows, trimming to the matched sentences, one
fused ranking with the facts inside one token budget, the snippet floor, the request's own
turn never recalled, scope, retention, and a real engine (SQLite, keyword + recent)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from memtap.config.holder import ConfigHolder
from memtap.config.schema import Config, EpisodesConfig, MemoryConfig, VectorStoreConfig
from memtap.engine.engine import Engine
from memtap.engine.episode_types import EpisodeListQuery
from memtap.engine.episodes.chunks import (
    WINDOW_CHARS,
    sentences,
    topical_stems,
    trim,
    windows,
)
from memtap.engine.episodes.fused import fuse_with_episodes
from memtap.engine.episodes.recall import EpisodeRecall
from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.engine.types import Hit, Memory, Retrieval, RetrievalRequest, Turn

OWNER, OTHER = "a" * 24, "b" * 24


# -- pure parts -------------------------------------------------------------------------------
def test_windows_follow_sentences_and_stay_small() -> None:
    assert sentences("Hi there. How are you?\nFine!") == [
        "Hi there.",
        "How are you?",
        "Fine!",
    ]
    assert windows("One short message.") == ["One short message."]
    text = " ".join(f"Sentence number {i} is here." for i in range(40))
    parts = windows(text)
    assert len(parts) > 5 and all(len(p) <= WINDOW_CHARS for p in parts)
    assert " ".join(parts) == text  # nothing lost, nothing repeated
    assert all(len(w) <= WINDOW_CHARS for w in windows("x" * 2000))


def test_trim_keeps_the_matched_sentences_and_their_neighbours() -> None:
    window = (
        "We had a long week. The demo went badly because the VPN dropped. "
        "Then we ordered pizza. Everyone went home late."
    )
    stems = topical_stems("why did the demo go badly?")
    assert trim(window, stems, 400).text == window  # fits: whole
    cut = trim(window, stems, 50)
    assert (
        cut.text == "The demo went badly because the VPN dropped." and cut.matched == 1
    )
    wider = trim(window, stems, 110)
    assert wider.text.startswith("We had a long week. The demo went badly")
    assert trim("A" * 300, stems, 50).text.endswith("\u2026")


def _fact(content: str, request_id: str = "r-f", tokens: int = 10, **meta: Any) -> Hit:
    memory = Memory(
        id=content,
        owner=OWNER,
        session=None,
        type="factual",
        key=None,
        content=content,
        metadata={"request_id": request_id, **meta},
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )
    return Hit(memory=memory, score=1.0, tier="keyword", tokens=tokens)


def _snippet(
    content: str,
    request_id: str = "r-e",
    tokens: int = 30,
    partner: dict[str, str] | None = None,
    role: str = "user",
) -> Hit:
    said: dict[str, Any] = {"role": role, "request_id": request_id}
    if partner is not None:
        said["partner"] = partner
    memory = Memory(
        id=f"e-{request_id}-{content}",
        owner=OWNER,
        session=None,
        type="episodic",
        key=None,
        content=content,
        metadata={"kind": "episode", "episode": said},
        created_at="2026-02-01T00:00:00.000Z",
        updated_at="2026-02-01T00:00:00.000Z",
    )
    return Hit(memory=memory, score=0.5, tier="keyword", tokens=tokens, kind="episode")


def test_one_ranking_one_budget_facts_first_on_ties() -> None:
    cfg = MemoryConfig(
        max_tokens=75, max_items=12, episodes=EpisodesConfig(max_snippets=2)
    )
    facts = Retrieval((_fact("Has a cat named Biscuit"), _fact("Lives in Leeds")), {})
    snippets = EpisodeRecall(
        [
            _snippet("Biscuit knocked my coffee over."),
            _snippet("We moved in March."),
            _snippet("A third snippet."),
        ],
        {},
    )
    out = fuse_with_episodes(
        facts, snippets, RetrievalRequest(owner=OWNER, query="q"), cfg
    )
    assert [h.memory.content for h in out.hits] == [
        "Has a cat named Biscuit",
        "Biscuit knocked my coffee over.",
        "Lives in Leeds",
    ]
    assert out.tokens <= 75  # the second snippet did not fit
    assert out.resolution["episodes"]["injected"] == 1
    many = fuse_with_episodes(
        Retrieval((), {}),
        snippets,
        RetrievalRequest(owner=OWNER, query="q"),
        dataclasses.replace(cfg, max_tokens=600),
    )
    assert [h.kind for h in many.hits] == ["episode", "episode"]  # max_snippets


def test_a_snippet_that_restates_its_turns_fact_is_dropped() -> None:
    cfg = MemoryConfig()
    facts = Retrieval((_fact("Prefers green tea", request_id="r1"),), {})
    snippets = EpisodeRecall(
        [
            _snippet("I prefer green tea.", request_id="r1"),
            _snippet("I prefer green tea, sencha mostly.", request_id="r1"),
            _snippet("I prefer green tea.", request_id="r2"),
        ],
        {},
    )
    out = fuse_with_episodes(
        facts, snippets, RetrievalRequest(owner=OWNER, query="tea"), cfg
    )
    assert [h.memory.content for h in out.hits] == [
        "Prefers green tea",
        "I prefer green tea, sencha mostly.",
        "I prefer green tea.",
    ]


def test_a_fact_its_own_turns_snippet_says_whole_gives_its_place_to_more_evidence() -> (
    None
):
    """No evidence twice: a quoted clause or an event beside the message it was read from
    (or beside that message as a partner) is left out, and its tokens go to the next hit.
    A fact that fills a slot stays: it is the profile's current value."""
    cfg = MemoryConfig(max_tokens=110, max_items=12)
    quote = _fact('Said: "We love hiking at the park"', "r1", 10, slot=None)
    event = _fact("Had a picnic with friends from church", "r2", 10, slot=None)
    diet = _fact("Is vegetarian", "r1", 10, slot="constraint.diet")
    other = _fact('Said: "We love the sea"', "r9", 10, slot=None)
    facts = Retrieval((quote, event, diet, other), {})
    snippets = EpisodeRecall(
        [
            _snippet(
                "We love hiking at the park by the river, and I'm vegetarian.", "r1"
            ),
            _snippet(
                "What did you do on Sunday?",
                "r0",
                partner={
                    "role": "user",
                    "request_id": "r2",
                    "text": "A picnic with friends from church!",
                },
            ),
            _snippet("The fourth snippet, further down.", "r3"),
        ],
        {},
    )
    out = fuse_with_episodes(
        facts, snippets, RetrievalRequest(owner=OWNER, query="q"), cfg
    )
    contents = [h.memory.content for h in out.hits]
    assert quote.memory.content not in contents
    assert event.memory.content not in contents
    assert diet.memory.content in contents and other.memory.content in contents
    # the two facts' 20 tokens let the third snippet in
    assert "The fourth snippet, further down." in contents
    assert out.tokens <= 110
    # Without the snippets that say them, both facts are injected.
    alone = fuse_with_episodes(
        facts,
        EpisodeRecall([snippets.hits[2]], {}),
        RetrievalRequest(owner=OWNER, query="q"),
        cfg,
    )
    assert quote.memory.content in [h.memory.content for h in alone.hits]
    # A fact only gives way to a snippet that is taken: one too long for what is left of
    # the budget, even with the fact's tokens back, leaves the fact where it was.
    big = EpisodeRecall(
        [_snippet("We love hiking at the park by the river, every Sunday.", "r1", 200)],
        {},
    )
    kept = fuse_with_episodes(facts, big, RetrievalRequest(owner=OWNER, query="q"), cfg)
    assert quote.memory.content in [h.memory.content for h in kept.hits]
    assert all(h.kind == "fact" for h in kept.hits)
    # What the assistant said in that turn shows no fact of the user's.
    concert = _fact("Did not go to the concert", "r5", 10, slot=None)
    asked = _snippet("Did you go to the concert downtown?", "r5", 10, role="assistant")
    both = fuse_with_episodes(
        Retrieval((concert,), {}),
        EpisodeRecall([asked], {}),
        RetrievalRequest(owner=OWNER, query="q"),
        cfg,
    )
    assert [h.memory.content for h in both.hits] == [
        "Did not go to the concert",
        "Did you go to the concert downtown?",
    ]


# -- a real engine ----------------------------------------------------------------------------
def config(tmp_path: Path, **episodes: Any) -> Config:
    return Config(
        data_dir=str(tmp_path),
        memory=MemoryConfig(
            strategy="hybrid",
            # Long enough that a loop lagging behind a loaded CI box does not shed the
            # snippets these tests read (the shed point is a share of the limit).
            retrieval_timeout_ms=2000,
            episodes=dataclasses.replace(EpisodesConfig(), **episodes),
        ),
        vector_store=VectorStoreConfig(kind="none"),
    )


@pytest.fixture
async def make_engine(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    engines: list[Engine] = []

    async def make(**episodes: Any) -> Engine:
        engine = await open_engine(
            ConfigHolder(config(tmp_path, **episodes)), Metrics()
        )
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        await engine.close()


async def said(
    engine: Engine,
    text: str,
    owner: str = OWNER,
    session: str | None = None,
    at: str = "2026-03-04T10:00:00.000Z",
    rid: str = "r",
) -> None:
    await engine.enqueue_turn(
        Turn(rid, owner, session, "openai-chat", text, "ok", created_at=at)
    )
    # Until the turn is stored, however long a busy machine takes (it was 3 s, then on
    # regardless: the retrieval after it found nothing yet).
    deadline = time.monotonic() + 60
    while not (
        await engine.outbox.depth() == 0
        and not engine.pending.waiting
        and not engine.pending.unfinished()  # episodes are written after the facts
    ):
        assert time.monotonic() < deadline, "the turn was never stored"
        await asyncio.sleep(0.01)


async def snippets(
    engine: Engine, query: str, owner: str = OWNER, **kw: Any
) -> list[str]:
    found = await engine.retrieve(
        RetrievalRequest(owner=owner, query=query, **kw), side_effects=False
    )
    return [h.memory.content for h in found.hits if h.kind == "episode"]


async def test_an_engine_recalls_what_was_said_with_its_date(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine()
    await said(
        engine,
        "The demo went badly because the VPN dropped twice.",
        rid="r1",
        at="2026-03-04T10:00:00.000Z",
    )
    await said(engine, "We drove to the coast with the kids.", owner=OTHER, rid="r2")
    found = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="why did the demo go badly"),
        side_effects=False,
    )
    [hit] = [h for h in found.hits if h.kind == "episode"]
    assert hit.memory.content == "The demo went badly because the VPN dropped twice."
    assert hit.memory.created_at == "2026-03-04T10:00:00.000Z" and hit.why == (
        "keyword",
    )
    assert hit.memory.metadata["episode"]["request_id"] == "r1"
    assert await snippets(engine, "coast kids") == []  # another owner's
    assert (
        await snippets(engine, "quantum chromodynamics") == []
    )  # nothing above the floor
    # The request's own text is never its own snippet.
    assert (
        await snippets(engine, "The demo went badly because the VPN dropped twice.")
        == []
    )


async def test_session_scope_applies_to_snippets(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine()
    await said(
        engine, "Our sourdough starter is called Gaston.", session="s1", rid="r1"
    )
    assert (
        await snippets(engine, "sourdough starter name", session="s2", scope="session")
        == []
    )
    assert await snippets(
        engine, "sourdough starter name", session="s1", scope="session"
    ) == ["Our sourdough starter is called Gaston."]
    assert await snippets(engine, "sourdough starter name") == [
        "Our sourdough starter is called Gaston."
    ]


async def test_retention_and_the_sweep(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine(retention_days=30)
    await said(
        engine, "Ages ago we went to Rome.", at="2020-01-01T00:00:00.000Z", rid="r1"
    )
    await said(
        engine,
        "Yesterday we went to Rome again.",
        at="2099-01-01T00:00:00.000Z",
        rid="r2",
    )
    # The snippet reads its relative date as the day it meant; the episode is as said.
    assert await snippets(engine, "rome") == [
        "Yesterday (31 December 2098) we went to Rome again."
    ]
    await engine.sweep()
    page = await engine.list_episodes(EpisodeListQuery(owner=OWNER))
    assert [e.content for e in page.items] == ["Yesterday we went to Rome again."]


async def test_the_cap_evicts_the_oldest_episodes(
    make_engine: Callable[..., Any],
) -> None:
    engine = await make_engine(max_per_owner=2)
    for i, day in enumerate(("01", "02", "03")):
        await said(
            engine,
            f"Gardening note {i}: tomatoes.",
            at=f"2026-03-{day}T00:00:00.000Z",
            rid=f"r{i}",
        )
    assert sorted(await snippets(engine, "gardening tomatoes")) == [
        "Gardening note 1: tomatoes.",
        "Gardening note 2: tomatoes.",
    ]


async def test_episodes_off_recalls_nothing(make_engine: Callable[..., Any]) -> None:
    engine = await make_engine(enabled=False)
    await said(engine, "The demo went badly because the VPN dropped twice.")
    assert await snippets(engine, "demo vpn") == []


async def test_a_snippet_in_another_script_keeps_to_its_tokens(
    make_engine: Callable[..., Any],
) -> None:
    """`snippet_tokens` is tokens in any script: a Cyrillic character is two UTF-8 bytes
    and about two thirds of a token, so the 320 characters that are 80 tokens of English
    were ~210 of Russian."""
    from memtap.engine.text.tokens import estimate_tokens

    engine = await make_engine()
    filler = "Вчера мы долго гуляли по парку и разговаривали о работе и погоде. "
    message = filler * 6 + "Мою собаку зовут Рекс, ему четыре года. " + filler * 6
    await said(engine, message, rid="r1")
    [snippet] = await snippets(engine, "как зовут мою собаку")
    assert "Рекс" in snippet and len(snippet) < len(message)
    cap = engine.holder.current.memory.episodes.snippet_tokens
    assert estimate_tokens(snippet) <= cap + 1  # the ellipsis of a cut
    found = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="как зовут мою собаку"),
        side_effects=False,
    )
    [hit] = [h for h in found.hits if h.kind == "episode"]
    assert hit.tokens >= estimate_tokens(snippet)  # its line as injected


async def test_snippets_made_are_bounded_by_the_slots(
    make_engine: Callable[..., Any],
) -> None:
    from memtap.engine.episode_types import NewEpisode
    from memtap.engine.episodes.recall import CANDIDATES_PER_SNIPPET, recall_episodes

    engine = await make_engine(max_snippets=2)
    assert engine.episodes is not None
    store = engine.episodes.store
    await store.add(
        [
            NewEpisode(
                OWNER,
                f"s{i}",
                "user",
                f"The boiler broke again, repair number {i}.",
                f"2026-03-{1 + i % 28:02d}T10:00:00.000Z",
            )
            for i in range(30)
        ],
        "2026-03-30T10:00:00.000Z",
        10**6,
    )
    cfg = engine.holder.current.memory
    found = await recall_episodes(
        store, cfg, RetrievalRequest(owner=OWNER, query="when did the boiler break?")
    )
    assert len(found.hits) == 2 * CANDIDATES_PER_SNIPPET  # not all 30 windows
    scores = [h.score for h in found.hits]
    assert scores == sorted(scores, reverse=True)  # the best fused ones
    block = await snippets(engine, "when did the boiler break?")
    assert len(block) == 2


async def test_a_keyword_window_ranked_deep_by_meaning_keeps_its_cosine(
    tmp_path: Path,
) -> None:
    """The vector arm reads only its best `pool` windows but ranks four times deeper: a
    keyword window found down that ranking takes its rank and cosine from it (without them
    it would fail the keyword windows' cosine floor and be dropped)."""
    from memtap.engine.episode_types import NewEpisode
    from memtap.engine.episodes.recall import recall_episodes
    from memtap.engine.sqlite import migrations
    from memtap.engine.sqlite.database import Database
    from memtap.engine.sqlite.driver import choose_driver
    from memtap.engine.sqlite.episodes import SqliteEpisodeStore
    from tests.support.hash_embedder import HashEmbedder

    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    embedder = HashEmbedder(dim=384)
    store = SqliteEpisodeStore(db, source=lambda: embedder)
    parrot = (
        "The parrot ate one of the tomatoes in the long afternoon sun while we sat."
    )
    try:
        await store.add(
            [
                NewEpisode(
                    OWNER,
                    "s",
                    "user",
                    f"tomatoes tomatoes note {i}",
                    f"2026-03-0{1 + i % 9}T10:00:00.000Z",
                )
                for i in range(10)
            ]
            + [NewEpisode(OWNER, "s", "user", parrot, "2026-03-09T10:00:00.000Z")],
            "2026-03-10T10:00:00.000Z",
            10**6,
        )
        while await store.embed_pending(64):
            pass
        cfg = MemoryConfig(top_k=4, episodes=EpisodesConfig(max_snippets=2))
        query = "tomatoes parrot"
        found = await store.vector(query, episode_live_for(cfg), 4, 16)
        assert len(found.hits) == 4  # read: the pool
        deep = [ref for ref, _ in found.ranked]
        by_keyword = await store.keyword(query, episode_live_for(cfg), 4)
        parrot_ref = next(h.ref for h in by_keyword if h.episode.content == parrot)
        assert parrot_ref in deep and parrot_ref not in {h.ref for h in found.hits}
        recalled = await recall_episodes(
            store, cfg, RetrievalRequest(owner=OWNER, query=query, strategy="hybrid")
        )
        hit = next(h for h in recalled.hits if h.memory.content == parrot)
        assert hit.fts_rank == 1 and hit.vec_rank is not None and hit.vec_rank > 4
        assert hit.vec_rank == deep.index(parrot_ref) + 1
        assert hit.similarity is not None and 0.25 < hit.similarity < 0.5
        assert set(hit.why) >= {"keyword", "meaning"} and hit.tier == "hybrid"
    finally:
        await db.close()


def episode_live_for(cfg: MemoryConfig) -> Any:
    from memtap.engine.episodes.recall import episode_live

    return episode_live(RetrievalRequest(owner=OWNER, query="q"), cfg)


async def test_a_snippet_the_request_already_says_is_not_recalled(
    make_engine: Callable[..., Any],
) -> None:
    boilerplate = (
        "I have been going through the notes from the planning meeting. "
        "There is also the budget review on Thursday."
    )
    engine = await make_engine()
    await said(engine, f"{boilerplate} Which tea do I like best?", rid="r1")
    await said(
        engine, "The budget review moved to Friday because Ana is away.", rid="r2"
    )
    block = await snippets(engine, f"{boilerplate} Anyway: which tea do I like best?")
    assert not any(
        "planning meeting" in s for s in block
    )  # all of it is in the request
    assert any(
        "moved to Friday" in s for s in block
    )  # says something the request does not
    # A word inside another word is no sentence of the request.
    from memtap.engine.episodes.recall import _adds_nothing

    assert not _adds_nothing(
        "Ok.", "then i took. the bus", set()
    )  # "ok." inside "took."
    assert _adds_nothing("Ok.", "fine. ok. then", set())
    # The same question asked before, with the request's boilerplate: nothing new.
    asked = "i read the notes. anyway (turn 4): which tea do i like best?"
    stems = topical_stems(asked)
    assert _adds_nothing(
        "I read the notes. Anyway (turn 3): which tea do I like best?", asked, stems
    )
    assert not _adds_nothing("I read the notes. I like oolong best.", asked, stems)


async def test_a_cancelled_recall_cancels_its_vector_arm_too(tmp_path: Path) -> None:
    """The proxy's retrieval limit cancels a recall while its keyword arm still reads: the
    vector arm, not awaited yet, kept embedding the query for a request gone upstream, and
    its timeout was logged as "Task exception was never retrieved"."""
    from memtap.engine.episodes.recall import recall_episodes
    from memtap.engine.sqlite import migrations
    from memtap.engine.sqlite.database import Database
    from memtap.engine.sqlite.driver import choose_driver
    from memtap.engine.sqlite.episodes import SqliteEpisodeStore
    from tests.support.hash_embedder import HashEmbedder

    embedding = asyncio.Event()
    cancelled: list[str] = []

    class SlowModel(HashEmbedder):
        async def embed(self, texts: Any, *, urgent: bool = False) -> Any:
            embedding.set()
            try:
                await asyncio.sleep(30)  # a model queue far behind
            except asyncio.CancelledError:
                cancelled.append("embedding")
                raise
            return await super().embed(texts, urgent=urgent)

    class SlowKeywords(SqliteEpisodeStore):
        async def keyword_and_terms(self, query: str, live: Any, limit: int) -> Any:
            await asyncio.sleep(30)  # a reader queue far behind
            return await super().keyword_and_terms(query, live, limit)

    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    model = SlowModel(dim=384)
    store = SlowKeywords(db, source=lambda: model)
    cfg = MemoryConfig(retrieval_timeout_ms=60_000)
    loop = asyncio.get_running_loop()
    unretrieved: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    try:
        recall = asyncio.ensure_future(
            recall_episodes(
                store, cfg, RetrievalRequest(owner=OWNER, query="q", strategy="hybrid")
            )
        )
        await asyncio.wait_for(embedding.wait(), 5)
        recall.cancel()
        with pytest.raises(asyncio.CancelledError):
            await recall
        for _ in range(5):
            await asyncio.sleep(0)
        assert cancelled == ["embedding"]
    finally:
        loop.set_exception_handler(None)
        await db.close()
    assert not unretrieved


async def test_a_vector_arm_with_no_time_left_starts_nothing() -> None:
    """Past its share of the limit (queued for a slot, waiting for own writes), the arm
    must not queue a KNN or an embedding: a timeout scope of 0 ran the body until its
    first pause."""
    import time

    from memtap.engine.episodes.recall import _vector_arm
    from memtap.engine.retrieval.deadline import RetrievalClock

    started: list[str] = []

    class Store:
        async def vector(self, *args: Any) -> Any:
            started.append("vector")
            await asyncio.sleep(0)

    cfg = MemoryConfig()
    late = RetrievalClock(started=time.monotonic() - 10)
    req = RetrievalRequest(owner=OWNER, query="q", strategy="hybrid")
    with pytest.raises(TimeoutError):
        await _vector_arm(Store(), cfg, req, episode_live_for(cfg), 4, late, None)  # type: ignore[arg-type]
    assert started == []


async def test_slow_snippets_do_not_cost_the_facts(
    make_engine: Callable[..., Any],
) -> None:
    """Once the facts are ready they wait for the episodes' recall only up to
    `EPISODES_SHARE` of the limit: past the limit the request lost both."""
    from memtap.engine.retrieval.deadline import EPISODES_SHARE

    engine = await make_engine()
    await said(
        engine, "I prefer oolong tea. The demo went badly because the VPN dropped."
    )
    assert engine.episodes is not None
    store = engine.episodes.store
    real_keyword = store.keyword_and_terms
    finished: list[bool] = []

    async def slow_keyword(*args: Any, **kwargs: Any) -> Any:
        try:
            await asyncio.sleep(5)  # a reader stuck behind a saturated loop
            return await real_keyword(*args, **kwargs)
        finally:
            finished.append(True)

    store.keyword_and_terms = slow_keyword  # type: ignore[method-assign]
    limit_s = engine.holder.current.memory.retrieval_timeout_ms / 1000
    loop = asyncio.get_running_loop()
    started = loop.time()
    found = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="which tea do I prefer?"),
        side_effects=False,
    )
    took = loop.time() - started
    assert EPISODES_SHARE * limit_s * 0.9 <= took < limit_s
    assert [h.memory.content for h in found.hits] == ["Prefers oolong tea"]
    (fallback,) = found.resolution["episodes"]["fallbacks"]
    assert fallback["reason"] == "episodes_timeout"
    assert engine.metrics.memory_fallbacks.value("episodes_timeout") == 1
    await asyncio.sleep(0.01)
    assert finished == [True]  # the abandoned recall was cancelled, not left running


async def test_a_limit_that_comes_while_the_snippets_are_awaited_answers_with_the_facts(
    make_engine: Callable[..., Any],
) -> None:
    """The caller's limit (before the episodes' own deadline) cuts the wait for the
    snippets: the facts, already retrieved, answer."""
    engine = await make_engine()
    await said(engine, "I prefer oolong tea.")
    assert engine.episodes is not None
    store = engine.episodes.store

    async def stuck_keyword(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(5)

    store.keyword_and_terms = stuck_keyword  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    started = loop.time()
    found = await engine.retrieve(
        RetrievalRequest(owner=OWNER, query="which tea do I prefer?"), limit_ms=100
    )
    took = loop.time() - started
    assert 0.09 <= took < 0.5
    assert [h.memory.content for h in found.hits] == ["Prefers oolong tea"]
    (episodes,) = found.resolution["episodes"]["fallbacks"]
    assert episodes == {"tier": "episodes", "reason": "time_limit"}
    assert found.resolution["fallbacks"][-1]["answered_with"] == "facts"
    assert engine.metrics.memory_fallbacks.value("retrieval_partial") == 1
    assert engine.metrics.memory_fallbacks.value("episodes_timeout") == 0
