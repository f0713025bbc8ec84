"""How one recalled episode reads in the memory block: one line, who said it, and the message
beside it that completes it. One function for the block (`proxy/addons/inject.py`) and for
the tokens the budget walk counts (`engine/episodes/partners.snippet_tokens`), so the two
never disagree.

- a user message with the assistant message it answered:
  `assistant: Did you go to the parade? | user: Yes, last week!`
- an assistant message with the user's answer to it:
  `assistant: Here is the recipe: ... | user: Thanks, I'll try it`
- alone: `user said: ...` / `assistant said: ...`
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import replace
from functools import lru_cache
from typing import Any

from memtap.engine.clock import parse_iso
from memtap.engine.episodes.chunks import cut, trim
from memtap.engine.memory_block import spoken_day
from memtap.engine.text.dates import annotate, resolve_dates
from memtap.engine.text.tokens import chars_within

PARTNER_TOKENS = 60
"""What of the partner message is kept beside a recalled one (`partner_text`): enough for
the question a short answer needs, without spending the budget on a second whole message
(240 characters of English; fewer of a script that costs more tokens a character)."""


def episode_line(role: str, text: str, partner: dict[str, Any] | None) -> str:
    if not partner:
        return f"{role} said: {text}"
    other = f"{partner.get('role', 'assistant')}: {partner.get('text', '')}"
    if partner.get("position") == "before":
        return f"{other} | {role}: {text}"
    return f"{role}: {text} | {other}"


def partner_text(text: str, query_stems: AbstractSet[str] | None = None) -> str:
    """`text` within `PARTNER_TOKENS`: whole when it fits, else the sentences that share a
    word with the question (then their neighbours, then the rest in order while they fit),
    else its head cut at a word boundary (an ellipsis marks that cut). The partner is often
    where the answer is ("What did you make?" beside "Last Fri I took my kids to a pottery
    workshop. We all made our own pots"): its head alone lost it."""
    flat = " ".join(text.split())
    cap = chars_within(flat, PARTNER_TOKENS)
    if len(flat) <= cap:
        return flat
    if query_stems:
        focused = trim(flat, query_stems, cap)
        if focused.matched:
            return focused.text
    return cut(flat, cap)


@lru_cache(maxsize=1 << 12)
def dated_in_words(text: str, said_at: str) -> str:
    """`text` with each relative date it holds ("yesterday", "last Saturday", "in two
    weeks") followed by the date it meant on the day it was said, in words: "I went to the
    support group yesterday (7 May 2023)". English expressions; `text` as it is when there
    is none or `said_at` cannot be read.

    Cached (a function of its two arguments alone): every snippet of a retrieval is read
    for dates (~30), mostly the owner's same windows query after query, and reading them
    was the largest share of the snippets' time on the event loop."""
    try:
        found = resolve_dates(text, parse_iso(said_at), "en")
    except ValueError:
        return text
    if not found:
        return text
    return annotate(text, [replace(r, value=_spoken(r.value)) for r in found])


def _spoken(value: str) -> str:
    """A resolved date in words: a day, "week of" a day, a month or a year."""
    if value.startswith("week of "):
        return "week of " + spoken_day(value[len("week of ") :])
    if len(value) == 7 and value[4] == "-":  # a month
        return spoken_day(value + "-01").split(" ", 1)[1]
    return spoken_day(value) if len(value) == 10 else value


def forget_texts() -> None:
    """Empty this module's text cache (`recall.forget_texts`)."""
    dated_in_words.cache_clear()
