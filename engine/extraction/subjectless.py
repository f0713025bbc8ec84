"""English clauses that leave out their subject ("Just moved to Denver", "can't do gluten",
"not a coffee person", "huge Ghibli nerd here"): the user speaking about themselves in the
terse way people type. The rules read a subject; `with_subject` gives the clause back with
the one it left out, or None when it is not such a clause.

Only what states something about the speaker opens such a clause, each with the words that
make it a statement: a few past tenses ("moved to Denver", "got married"), stative verbs
("work at", "live in", "hate cilantro"), plans in -ing ("training for"), the adjectives of
the constraint and identity rules ("allergic to", "vegan" ending its clause), who signs with
"here", and what is the user's own said without "my" ("pronouns are they/them"). Verbs that
also read as an order ("use", "run", "write") never do, so "Use Postgres for this" stays a
request, and searches or titles ("Vegan lasagna recipe", "Love Island recap") stay what they
are.
"""

from __future__ import annotations

import re

_FILLERS = (
    r"(?:(?:just|finally|recently|also|so|and|but|ugh|oh|well|btw|fyi|honestly|officially|"
    r"still|anyway|ok|okay|lol|haha|hi|hey|hello)[,!.:\s]+)*"
)
# Opened by a past tense or a stative verb: "I" was left out. Each verb only with what
# follows it when it states something ("moved to", "work at"), so a title or a search
# ("Love Island recap", "Work from home policy template") is not read as the user.
_PAST_OR_STATIVE = re.compile(
    r"^" + _FILLERS + r"(?=(?:just\s+|finally\s+|recently\s+|also\s+)*"
    r"(?:got\s+(?:married|engaged|divorced|promoted|laid\s+off|fired|hired|a\s+new\s+job)\b|"
    r"(?:moved|relocated)\s+(?:up\s+|back\s+|out\s+)?(?:to|from)\s+(?-i:[A-Z])|"
    r"started\s+(?:as|at|my|a\s+new)\b|graduated\b|quit\s+(?:my\b|smoking\b|drinking\b|"
    r"(?-i:[A-Z]))|left\s+(?:my\b|(?-i:[A-Z]))|became\b|adopted\b|grew\s+up\b|"
    r"(?:hate|love|adore)\s+(?!the\b|this\b|that\b|it\b|you\b|your\b)(?-i:[a-z])|"
    r"can't\b|cannot\b|can\s+not\b|don't\b|do\s+not\b|live\s+(?:in|with|near|on|at)\b|"
    r"work\s+(?:at|for|as|in)\b|"
    r"retired\s+(?:last|this|in|after|from|early|now|since|\d)))",
    re.IGNORECASE,
)
# Opened by what follows "I'm": a plan in -ing, an adjective or a noun phrase of the rules,
# each followed by what makes it a statement ("vegan lasagna recipe" is a search).
_STATE = re.compile(
    r"^"
    + _FILLERS
    + r"(?=(?:(?:working\s+(?:as|at|for|in)|living\s+(?:in|with)|studying\s+\w+\s+(?:at|in)|"
    r"learning\s+(?-i:[A-Z])\w*|training\s+for|saving\s+(?:up\s+)?for|planning\s+to|"
    r"expecting\s+(?:(?:a|our|my)\s+(?:first\s+|second\s+|third\s+)?(?:baby|child|kid|son|"
    r"daughter|girl|boy)|twins))\b|not\s+a\b|"
    r"a\s+(?:huge|big|total|lifelong)\b|"
    r"(?:huge|big|total|lifelong|longtime|long-time|die-hard|diehard)\s+(?:[\w'-]+\s+){0,3}?"
    r"(?:fan|nerd|geek|buff|lover|addict|enthusiast|person|foodie)\b|"
    r"allergic\s+to\b|(?:based|living)\s+(?:in|out\s+of)\b|originally\s+from\b|"
    r"(?:vegan|vegetarian|pescatarian|celiac|coeliac|diabetic|lactose\s+intolerant|deaf|blind|"
    r"colou?r-?blind|dyslexic|autistic|divorced|engaged|pregnant|unemployed|self-employed)"
    r"(?=\s*(?:$|[,.!;:)]|\s+(?:for|since|now|too|btw|and|but|so|here|myself|lol)\b))))",
    re.IGNORECASE,
)
_BORN = re.compile(r"^" + _FILLERS + r"(?=born\b)", re.IGNORECASE)
# "pronouns are they/them", "hey, name's Dmitri": the "my" left out of what is the user's own.
_OWN = re.compile(
    r"^"
    + _FILLERS
    + r"(?=(?:name's|name\s+is|pronouns\s+are|pronouns:|birthday\s+is)\b)",
    re.IGNORECASE,
)
_BEEN = re.compile(r"^" + _FILLERS + r"(?=been\b)", re.IGNORECASE)
# "Data engineer at Shopify here", "Single dad here": who is speaking, said the way people
# sign a message. A lone name ("Marco here") is the signature rule's.
_HERE = re.compile(
    r"^"
    + _FILLERS
    + r"(?P<who>(?:[\w/&+'.-]+\s+){1,6}?[\w/&+'.-]+|[a-z][\w/&+'.-]*)\s+here\b"
    r"(?=\s*(?:[,.!;:—–-]|$))",
    re.IGNORECASE,
)
_NOT_WHO = re.compile(
    r"^(?:same|nobody|no\s+one|everyone|anyone|someone|it|this|that|there|i|me|we|you|stuck|"
    r"new|back|still|right|over|lost|all|the|my|our|just|hi|hello|hey|thanks)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
_HAS_SUBJECT = re.compile(
    r"^\W*(?:I|I'm|I've|I'd|I'll|i|im|ive|we|we're|my|our|you|your)\b"
)


def with_subject(clause: str) -> str | None:
    """`clause` with the "I" (or "I'm", "I was") it left out, or None."""
    if _HAS_SUBJECT.match(clause):
        return None
    here = _HERE.match(clause)
    if (
        here is not None
        and not _NOT_WHO.match(here.group("who"))
        and not _NAME.fullmatch(here.group("who"))
    ):
        who = _lower_opening(here.group("who"))
        article = (
            ""
            if re.match(r"(?:a|an|the)\s", who, re.IGNORECASE)
            else ("an " if who[:1].lower() in "aeiou" else "a ")
        )
        return f"I'm {article}{who}{clause[here.end() :]}"
    for pattern, subject in (
        (_BORN, "I was "),
        (_BEEN, "I've "),
        (_PAST_OR_STATIVE, "I "),
        (_STATE, "I'm "),
        (_OWN, "my "),
    ):
        m = pattern.match(clause)
        if m is not None:
            return subject + _lower_opening(clause[m.end() :])
    return None


def _lower_opening(text: str) -> str:
    """`text` without the capital it had for opening the message ("Data engineer", "Moved to
    Denver"); a name or an acronym keeps its case."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text
