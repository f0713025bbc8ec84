"""The parts of episode ranking, one by one: the owner's own BM25 (`episodes/lexical.py`), the
line an episode is injected as (`episodes/render.py`, dates in words), the episodes one turn
holds (`turn_episodes`), and each snippet with the message that completes it
(`partners.with_partners`) over a real SQLite episode store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memtap.config.schema import EpisodesConfig
from memtap.engine.clock import iso
from memtap.engine.episode_types import (
    ASSISTANT_EPISODE_CHARS,
    ChunkHit,
    Episode,
    NewEpisode,
)
from memtap.engine.episodes.chunks import focus, topical_stems, windows
from memtap.engine.episodes.lexical import idf, owner_scores
from memtap.engine.episodes.partners import with_partners
from memtap.engine.episodes.render import (
    PARTNER_TOKENS,
    dated_in_words,
    episode_line,
    partner_text,
)
from memtap.engine.episodes.service import turn_episodes
from memtap.engine.memory_block import (
    MemoryLine,
    build_memory_block,
    line_tokens,
    spoken_day,
)
from memtap.engine.memory_rules import Live
from memtap.engine.ports import OutboxRow
from memtap.engine.sqlite import migrations
from memtap.engine.sqlite.database import Database
from memtap.engine.sqlite.driver import choose_driver
from memtap.engine.sqlite.episodes import SqliteEpisodeStore
from memtap.engine.types import Turn
from tests.support.snippets import snippet_of

NOW = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)


def window(text: str, n: int, role: str = "user") -> ChunkHit:
    episode = Episode(
        f"e{n}", "alice", None, role, text, iso(NOW), None, None, iso(NOW)
    )  # type: ignore[arg-type]
    return ChunkHit(episode, 0, text, 1.0, n)


# -- the owner's own BM25 ----------------------------------------------------------------------
def test_a_word_common_in_the_owners_history_weighs_little() -> None:
    hits = [
        window("Thanks, Caroline! Glad you like it.", 1),
        window("Hey Caroline! Missed you. Anything new?", 2),
        window("Researching adoption agencies, it has been a dream of mine.", 3),
    ]
    # "caroline" is in 129 of the owner's 563 windows, "research" in 4.
    ranked = owner_scores(hits, {"caroline": 129, "research": 4}, 563)
    assert ranked[0].episode.id == "e3"
    assert idf(4, 563) > 3 * idf(129, 563)
    # A window sharing no weighed word with the query is left out.
    assert owner_scores([window("Nothing in common.", 9)], {"research": 4}, 563) == []


def test_without_statistics_the_stores_order_stays() -> None:
    hits = [window("b research", 2), window("a research", 1)]
    assert owner_scores(hits, {}, 0) == hits


# -- the injected line -------------------------------------------------------------------------
def test_an_episode_line_says_who_said_it_with_its_partner() -> None:
    before = {"role": "assistant", "text": "Did you go?", "position": "before"}
    after = {"role": "user", "text": "Thanks!", "position": "after"}
    assert episode_line("user", "Yes, last week!", None) == "user said: Yes, last week!"
    assert episode_line("user", "Yes, last week!", before) == (
        "assistant: Did you go? | user: Yes, last week!"
    )
    assert episode_line("assistant", "Here it is.", after) == (
        "assistant: Here it is. | user: Thanks!"
    )
    long = "word " * 200
    cut = partner_text(long)
    assert len(cut) <= PARTNER_TOKENS * 4 and cut.endswith("\u2026")
    assert partner_text("  short   text ") == "short text"


def test_a_long_partner_keeps_the_sentences_the_question_asks_about() -> None:
    opening = "Hey, it has been a really busy couple of weeks over here with work and family. "
    told = (
        opening * 3
        + "Last Friday I took my kids to a pottery workshop. We all made our own pots!"
    )
    focused = partner_text(
        told, topical_stems("what did you make at the pottery workshop?")
    )
    assert len(focused) <= PARTNER_TOKENS * 4
    assert "pottery workshop" in focused and "made our own pots" in focused
    assert focused.count("Hey, it has been") < 3  # what did not fit is the chatter
    # Nothing the question asks about: the head, as before.
    assert partner_text(told, topical_stems("any news on the garden?")).startswith(
        "Hey, it has"
    )


def test_a_snippet_reads_its_window_in_the_whole_message() -> None:
    message = (
        "Hey Caroline, it's been super busy here. So much since we talked! "
        "Last Fri I finally took my kids to a pottery workshop. We all made our own pots, "
        "it was fun and therapeutic!"
    )
    first, second = windows(message)
    asked = topical_stems("What did Mel and her kids make during the pottery workshop?")
    # The window that matched ends before the answer; the message fits: all of it.
    assert "pots" not in first
    assert focus(message, first, asked, 320).text == message
    # A long message: the matched window's sentences first, the next window's after them,
    # within the cap, never the far start of the message.
    long = "Unrelated chatter about the weather and the traffic today. " * 12 + message
    snippet = focus(long, first, asked, 160)
    assert "pottery workshop" in snippet.text and len(snippet.text) <= 160
    assert "weather" not in snippet.text
    # A match by meaning (no word shared): the window itself, not the message's head.
    by_meaning = focus(long, second, {"ceramics"}, 120)
    assert by_meaning.matched == 0 and "pots" in by_meaning.text


def test_dates_are_written_in_words_and_lines_cost_what_they_inject() -> None:
    assert spoken_day("2023-05-08") == "8 May 2023"
    assert spoken_day("2023-12-31T10:00:00Z") == "31 December 2023"
    assert spoken_day("not a date") == "not a date"
    line = MemoryLine("user said: I went to a support group yesterday.", "2023-05-08")
    block = build_memory_block([line])
    assert "- [8 May 2023] user said: I went to a support group yesterday." in block
    written = "- [8 May 2023] user said: I went to a support group yesterday.\n"
    assert line_tokens(line) == (len(written) + 3) // 4


# -- the episodes of one turn ------------------------------------------------------------------
def turn(**kw: object) -> OutboxRow:
    fields: dict[str, object] = {
        "request_id": "r1",
        "owner": "alice",
        "session": None,
        "format": "openai-chat",
        "user_text": "Yes, last week!",
        "assistant_text": "Great to hear.",
        "created_at": "2024-05-08T13:56:00.000Z",
        "previous_assistant_text": "Did you go to the parade?",
    }
    fields.update(kw)
    return OutboxRow(1, Turn(**fields), 0)  # type: ignore[arg-type]


def test_a_turn_keeps_the_assistants_side_around_the_users_message() -> None:
    said = turn_episodes(turn(), EpisodesConfig())
    assert [(e.role, e.content, e.said_at) for e in said] == [
        ("assistant", "Did you go to the parade?", "2024-05-08T13:55:59.999Z"),
        ("user", "Yes, last week!", "2024-05-08T13:56:00.000Z"),
        ("assistant", "Great to hear.", "2024-05-08T13:56:00.001Z"),
    ]
    only_user = turn_episodes(turn(), EpisodesConfig(keep_assistant=False))
    assert [e.role for e in only_user] == ["user"]


def test_an_assistant_message_keeps_its_head_the_same_way_everywhere() -> None:
    reply = "Recipe: " + "flour and water " * 600
    first = turn_episodes(turn(assistant_text=reply), EpisodesConfig())[-1]
    later = turn_episodes(
        turn(request_id="r2", previous_assistant_text=reply, assistant_text=""),
        EpisodesConfig(),
    )[0]
    assert len(first.content) == ASSISTANT_EPISODE_CHARS
    assert first.id == later.id  # the reply and its re-sending are one episode


# -- partners over a real store ----------------------------------------------------------------
@pytest.fixture
async def store(tmp_path) -> AsyncIterator[SqliteEpisodeStore]:  # type: ignore[no-untyped-def]
    db = await Database.open(tmp_path / "memtap.db", choose_driver())
    await db.write_outside_transaction(migrations.migrate)
    yield SqliteEpisodeStore(db, source=lambda: None)
    await db.close()


def said(content: str, role: str, seconds: int) -> NewEpisode:
    return NewEpisode(
        owner="alice",
        session=None,
        role=role,  # type: ignore[arg-type]
        content=content,
        said_at=iso(NOW + timedelta(seconds=seconds)),
    )


hit = snippet_of  # a stored episode as the snippet hit `with_partners` takes


async def test_each_snippet_comes_with_the_message_that_completes_it(
    store: SqliteEpisodeStore,
) -> None:
    question = said("Did you do anything for your birthday?", "assistant", 0)
    answer = said("The Azores, with my brother!", "user", 1)
    reaction = said("Wow, sounds amazing!", "assistant", 2)
    news = said("I started the cello last month.", "user", 3)
    await store.add([question, answer, reaction, news], iso(NOW), 1000)
    live = Live(now=iso(NOW + timedelta(days=1)), cutoff=None, owner="alice")
    out = await with_partners(store, [hit(answer), hit(question), hit(news)], live)
    # The answer comes with its question; the question is then shown already.
    assert [h.memory.id for h in out] == [answer.id, news.id]
    partner = out[0].memory.metadata["episode"]["partner"]
    assert partner["text"] == question.content and partner["position"] == "before"
    assert out[0].tokens > 1
    # A statement's partner is the other side's message before it: the reaction.
    assert out[1].memory.metadata["episode"]["partner"]["id"] == reaction.id
    # A question comes with what follows it.
    alone = await with_partners(store, [hit(question)], live)
    assert alone[0].memory.metadata["episode"]["partner"]["id"] == answer.id
    # Another owner sees no partner of alice's.
    bob = Live(now=live.now, cutoff=None, owner="bob")
    assert (
        "partner"
        not in (await with_partners(store, [hit(answer)], bob))[0].memory.metadata[
            "episode"
        ]
    )


async def test_a_long_question_comes_with_its_answer_when_it_asks_what_was_asked(
    store: SqliteEpisodeStore,
) -> None:
    """The answer to a matched question rarely repeats the question's words: a long
    message that ends by asking about the thing asked about comes with its answer; one
    matched only by its lead-in does not (its answer is about something else)."""
    plans = said(
        "It's still a work in progress, but I'm doing my best. My kids are so excited "
        "about summer break! We're thinking about going camping next month. Any fun "
        "plans for the summer?",
        "assistant",
        0,
    )
    answer = said(
        "Researching adoption agencies, it's been a dream to have a family and give a "
        "loving home to kids who need it.",
        "user",
        1,
    )
    week = said(
        "We went camping by the lake last weekend and the kids loved every minute of "
        "it, even the rain on the second night. How was your week at the new job?",
        "assistant",
        2,
    )
    busy = said(
        "Busy! Three onboarding sessions and a laptop that would not boot. Friday was "
        "better, the team took me out for lunch by the river.",
        "user",
        3,
    )
    await store.add([plans, answer, week, busy], iso(NOW), 1000)
    live = Live(now=iso(NOW + timedelta(days=1)), cutoff=None, owner="alice")
    asked = topical_stems("What are her plans for the summer?")
    out = await with_partners(store, [hit(plans)], live, query_stems=asked)
    assert out[0].memory.metadata["episode"]["partner"]["id"] == answer.id
    camping = topical_stems("Where did they go camping?")
    out = await with_partners(store, [hit(week)], live, query_stems=camping)
    assert "partner" not in out[0].memory.metadata["episode"]


async def picnic(store: SqliteEpisodeStore, follow_up: str) -> list[NewEpisode]:
    """A statement, the other side's `follow_up`, the answer, then another exchange."""
    exchange = [
        said("Yeah, last weekend I had a picnic with friends from church.", "user", 0),
        said(follow_up, "assistant", 1),
        said("Some fun ones like charades and a scavenger hunt.", "user", 2),
        said("Ha, love it.", "assistant", 3),
        said("I also repainted the kitchen a pale green.", "user", 4),
    ]
    await store.add(exchange, iso(NOW), 1000)
    return exchange


ALICE_LIVE = Live(now=iso(NOW + timedelta(days=1)), cutoff=None, owner="alice")


async def test_the_answer_to_a_follow_up_question_comes_after_what_it_follows(
    store: SqliteEpisodeStore,
) -> None:
    """ "What games did you play?" holds no word of "What did she do at the picnic?", and
    the answer to it none either: a snippet that answers the other side's follow-up about
    a better one moves up to just after it, with the follow-up as its partner."""
    statement, follow_up, answer, _, other = await picnic(
        store, "Looks fun! What games did you all play?"
    )
    ranked = [hit(statement), hit(other), hit(answer)]
    out = await with_partners(store, ranked, ALICE_LIVE)
    assert [h.memory.id for h in out] == [statement.id, answer.id, other.id]
    partner = out[1].memory.metadata["episode"]["partner"]
    assert partner["id"] == follow_up.id and partner["position"] == "before"
    assert [h.why for h in out] == [(), ("follow_up",), ()]  # what preview shows
    # Only the order changes: an answer that is no snippet is not added.
    out = await with_partners(store, [hit(statement), hit(other)], ALICE_LIVE)
    assert [h.memory.id for h in out] == [statement.id, other.id]
    # Another owner's read finds no follow-up of alice's.
    bob = Live(now=ALICE_LIVE.now, cutoff=None, owner="bob")
    out = await with_partners(store, ranked, bob)
    assert [h.memory.id for h in out] == [statement.id, other.id, answer.id]


async def test_no_move_without_a_follow_up_question(store: SqliteEpisodeStore) -> None:
    statement, _, answer, _, other = await picnic(
        store, "Looks fun, I bet everyone had a great time."
    )
    out = await with_partners(
        store, [hit(statement), hit(other), hit(answer)], ALICE_LIVE
    )
    assert [h.memory.id for h in out] == [statement.id, other.id, answer.id]


async def test_no_move_after_a_snippet_that_asks(store: SqliteEpisodeStore) -> None:
    """A question's partner is already the message after it: the other side's reply that
    asks back is shown beside it, and the user's answer to that keeps its own rank."""
    asked = said("How long have you been painting?", "user", 0)
    asked_back = said("Since I was 17. How about you?", "assistant", 1)
    answer = said("Seven years now, mostly landscapes.", "user", 2)
    other = said("Work was hectic this week.", "user", 3)
    await store.add([asked, asked_back, answer, other], iso(NOW), 1000)
    out = await with_partners(store, [hit(asked), hit(other), hit(answer)], ALICE_LIVE)
    assert [h.memory.id for h in out] == [asked.id, other.id, answer.id]
    assert out[0].memory.metadata["episode"]["partner"]["id"] == asked_back.id


async def test_an_answer_past_the_lookups_gets_its_follow_up_as_partner(
    store: SqliteEpisodeStore,
) -> None:
    """Snippets past `most` get no partner of their own; a moved one is read beside its
    follow-up like any snippet beside its partner: a short answer always, a long one when
    the follow-up shares a word with the question."""
    statement = said("We finally went to the street festival by the river.", "user", 0)
    follow_up = said("Nice! What did you eat at the festival?", "assistant", 1)
    answer = said(
        "Grilled eel first, then a mango sticky rice from a stall run by two sisters who "
        "had come all the way from Chiang Mai for the weekend.",
        "user",
        2,
    )
    other = said("Work was hectic this week.", "user", 3)
    await store.add([statement, follow_up, answer, other], iso(NOW), 1000)
    ranked = [hit(statement), hit(other), hit(answer)]
    asked = topical_stems("What did she eat at the festival?")
    out = await with_partners(store, ranked, ALICE_LIVE, most=1, query_stems=asked)
    assert [h.memory.id for h in out] == [statement.id, answer.id, other.id]
    assert out[1].memory.metadata["episode"]["partner"]["id"] == follow_up.id
    # The follow-up shares no word with another question: the long answer comes alone.
    asked = topical_stems("Where did she go by the river?")
    out = await with_partners(store, ranked, ALICE_LIVE, most=1, query_stems=asked)
    assert [h.memory.id for h in out] == [statement.id, answer.id, other.id]
    assert "partner" not in out[1].memory.metadata["episode"]


async def test_a_follow_up_lookup_with_no_time_left_is_not_made(
    store: SqliteEpisodeStore,
) -> None:
    """Slow, the lookup would cost every snippet (the facts stop waiting for the recall):
    it may take half of what the recall has left, and none is none."""
    statement, _, answer, _, other = await picnic(
        store, "Looks fun! What games did you all play?"
    )
    fallbacks: list[dict[str, Any]] = []
    ranked = [hit(statement), hit(other), hit(answer)]
    out = await with_partners(
        store, ranked, ALICE_LIVE, fallbacks=fallbacks, left_s=0.0
    )
    assert [h.memory.id for h in out] == [statement.id, other.id, answer.id]
    assert fallbacks == [{"tier": "episodes.follow_ups", "reason": "TimeoutError"}]


async def test_answers_to_follow_ups_in_a_row_each_come_after_their_own(
    store: SqliteEpisodeStore,
) -> None:
    """The answer to a follow-up can be followed up in turn: each answer comes after the
    message it answers about, and no snippet is lost or shown twice."""
    first = said("We adopted a greyhound last month.", "user", 0)
    asked = said("No way! What's her name?", "assistant", 1)
    name = said("Pepper, after the salt and pepper patches on her face.", "user", 2)
    again = said("Cute! How old is she?", "assistant", 3)
    age = said("Four, she retired from racing.", "user", 4)
    other = said("Work was hectic this week.", "user", 6)
    await store.add([first, asked, name, again, age, other], iso(NOW), 1000)
    ranked = [hit(first), hit(other), hit(name), hit(age)]
    out = await with_partners(store, ranked, ALICE_LIVE)
    assert [h.memory.id for h in out] == [first.id, name.id, age.id, other.id]


async def test_a_failed_follow_up_read_leaves_the_snippets_as_they_were(
    store: SqliteEpisodeStore,
) -> None:
    statement, _, answer, _, other = await picnic(
        store, "Looks fun! What games did you all play?"
    )
    reads = 0
    neighbours = store.neighbours

    async def second_read_fails(ids: Any, live: Live) -> Any:
        nonlocal reads
        reads += 1
        if reads == 2:
            raise RuntimeError("reader gone")
        return await neighbours(ids, live)

    store.neighbours = second_read_fails  # type: ignore[method-assign]
    fallbacks: list[dict[str, Any]] = []
    ranked = [hit(statement), hit(other), hit(answer)]
    out = await with_partners(store, ranked, ALICE_LIVE, fallbacks=fallbacks)
    assert [h.memory.id for h in out] == [statement.id, other.id, answer.id]
    assert fallbacks == [
        {"tier": "episodes.follow_ups", "reason": "RuntimeError: reader gone"}
    ]
    # The first read's partners stand: the answer still comes with the follow-up.
    assert "partner" in out[2].memory.metadata["episode"]


def test_relative_dates_in_a_snippet_read_as_the_day_they_meant() -> None:
    said = "2023-05-25T13:56:00.000Z"
    assert dated_in_words("I went to the support group yesterday.", said) == (
        "I went to the support group yesterday (24 May 2023)."
    )
    assert dated_in_words("I ran a charity race last Saturday.", said) == (
        "I ran a charity race last Saturday (20 May 2023)."
    )
    assert (
        dated_in_words("Next month I start.", said) == "Next month (June 2023) I start."
    )
    assert dated_in_words("No date here.", said) == "No date here."
    assert dated_in_words("yesterday", "not a time") == "yesterday"
