"""Which language a text is in, by the commonest words of each registered pack: cheap (a
set lookup a word) and good enough on a sentence or more, which is all its callers ask of it
(a self-statement's language, which model embeds a message)."""

from __future__ import annotations

import re

from memtap.engine.languages.registry import PACKS

_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)


def language_of(said: str) -> str:
    """The language whose commonest words `said` uses most (English on a tie)."""
    words = [w.lower() for w in _WORD.findall(said.replace("'", "' "))]
    scores = {
        code: sum(w in pack.common for w in words)
        for code, pack in PACKS.items()
        if pack.common
    }
    best = max(scores.values())
    return "en" if scores["en"] == best else max(scores, key=scores.__getitem__)
