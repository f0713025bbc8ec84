"""Sentences and clauses of what the user says, and the clauses that state no fact.

No facts come from questions, hypotheticals ("if I…", "suppose…", "imagine…"), conditional
wishes ("I would move to Berlin"), fiction ("in this story I…"), reported speech ("my boss
says I…") or requests to produce or transform text ("translate…", "write a story where…",
"summarise this"). A request that points at its material ("translate this", "the text below",
a colon) makes the whole message material; otherwise the request and what follows it are.
"""

from __future__ import annotations

import re
from typing import Literal

from memtap.engine.text import lexicon

NonFact = Literal["question", "hypothetical", "reported", "request", "fiction"]

# Abbreviations do not end a sentence ("Call me Dr. Patel").
_SENTENCE_END = re.compile(
    r"(?<=[.!?;])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bSt\.)(?<!\bvs\.)"
    r"(?<!\bJr\.)(?<!\bSr\.)(?<!\be\.g\.)(?<!\bi\.e\.)\s+|\n+|(?<=[。！？；])"
)
_PARENTHESIS = re.compile(r"\(([^()]{3,200})\)")
# What opens a question or a request for help after a statement in the same sentence, in the
# languages other than English ("j'habite à Lyon, tu connais un bon bouchon ?"): the statement
# before it stays a statement.
_QUESTION_TAIL = (
    r"(?:(?:tu|vous)\s+(?:peux|pourrais|connais|sais|as|aurais|pouvez|pourriez|connaissez|savez|avez)|"
    r"(?:peux|pourrais|sais|connais)-tu|(?:pouvez|pourriez|connaissez|savez)-vous|"
    r"qu'est-ce|est-ce\s+que|comment|pourquoi|quel|quelle|quels|quelles|o[uù]\s|"
    r"(?:me\s+)?(?:puedes|podr[ií]as|ayudas|recomiendas|sabes|conoces)|qu[eé]\s|c[oó]mo|d[oó]nde|cu[aá]l|"
    r"(?:voc[eê]|vc)\s+(?:pode|poderia|sabe|conhece|recomenda)|(?:me\s+)?(?:ajuda|indica|recomenda)|"
    r"(?:pode|podes|poderia|consegue)\s|o\s+que|como|onde|qual|"
    r"(?:kannst|k[oö]nntest|hast|wei[sß]t|kennst)\s+du|(?:k[oö]nnen|haben|wissen)\s+Sie|"
    r"was|wie|wo|warum|welche[rsnm]?)\b"
)
_CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|(?<!\bme),?\s+(?:and|but|so|plus|also|though|although|while|whereas|because|since|as|cause|"
    r"y|pero|porque|e|mas|porque|et|mais|car|und|aber|weil|denn|sondern)\s+"
    r"(?!I\s+(?:are|were|both|have\s+both)\b)(?="
    + lexicon.SUBJECT
    + r"\b|"
    + lexicon.FIRST_PERSON_VERB
    + r"\b)"
    r"|,\s+(?=" + lexicon.SUBJECT + r"\b)"
    r"|,\s+(?=(?:what|how|why|where|which|who|can\s+you|could\s+you|would\s+you|should\s+I|do\s+you|"
    r"is\s+there|are\s+there|any\s+(?:ideas|tips|suggestions))\b)"
    r"|(?:,|\s)\s*(?=¿)|,\s+(?=" + _QUESTION_TAIL + r")"
    r"|,\s+(?=any\s)|\s+[—–]\s+(?=[^—–]*\?\s*$)",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:(?:so|and|but|ok|okay|also|hey|hi|well|now|quick\s+question)[,:]?\s+)*"
    r"(?:do|does|did|can|could|would|should|will|shall|is|are|am|was|were|have|has|had|how|what|"
    r"why|where|which|who|whom|whose|may|might|must|isn't|aren't|don't|doesn't|didn't|won't|"
    r"wouldn't|shouldn't|can't|couldn't)\s+(?:I|you|we|my|it|there|the|a|an|this|that|they|he|she|"
    r"your|u|one|anyone|someone)\b"
    r"|^(?:how|what|why|where|when|which|who)(?:'s|\s+(?:am|are|is|do|does|did|can|could|should|would|will|"
    r"was|were|has|have))\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"^(?:\W*(?:and|but|so|ok|okay|well|now|then|also|y|e|et|und|ahora|agora|alors)[,\s]+)*"
    r"(?:if|suppose|supposing|imagine|imagining|let's\s+say|lets\s+say|let\s+us\s+say|say|pretend|"
    r"assume|assuming|hypothetically|what\s+if|in\s+a\s+world|picture\s+this|even\s+if|unless|"
    r"si|supongamos|sup[oó]n|supon|imagina|imaginemos|imag[ií]nate|se|suponha|suponhamos|"
    r"imaginemos|e\s+se|imaginons|imaginez|supposons|suppose|et\s+si|wenn|falls|angenommen|"
    r"stell\s+dir\s+vor|nehmen\s+wir\s+an|gesetzt\s+den\s+fall)\b",
    re.IGNORECASE,
)
_CONDITIONAL = re.compile(
    r"\b(?:I(?:'d|\s+would|\s+could|\s+might)|we(?:'d|\s+would|\s+could|\s+might))\s+"
    r"(?!(?:really\s+|much\s+|also\s+|still\s+)*(?:like|love|rather|prefer|appreciate|enjoy|hate|"
    r"say|describe|call)\b)\w+",
    re.IGNORECASE,
)
_FICTION = re.compile(
    r"\b(?:in\s+(?:this|the|my|our|a)\s+(?:story|novel|game|scenario|role-?play|book|script|"
    r"dream|fiction|fantasy|poem|song|screenplay|campaign|simulation)|my\s+character|as\s+a\s+character|"
    r"role-?play(?:ing)?|pretend(?:ing)?\s+(?:to\s+be|that|you|I)|act\s+as|you\s+are\s+now|"
    r"for\s+(?:a|my|the)\s+(?:story|novel|game|screenplay|example|test|exercise|demo|sample))\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:said|says|say\s+that|told\s+(?:me|us|him|her|them)|tells\s+(?:me|us)|thinks|believes|"
    r"claims?|claimed|insists|insisted|mentioned|wrote|writes|asked\s+(?:me|if|whether)|"
    r"according\s+to|apparently|supposedly|allegedly|dijo|dice\s+que|dicen\s+que|me\s+dijo|"
    r"según|disse|diz\s+que|dizem\s+que|segundo|falou\s+que|a\s+dit|dit\s+que|disent|selon|"
    r"m'a\s+dit|sagte|sagt|meint|laut|hat\s+gesagt|behauptet)\b",
    re.IGNORECASE,
)
_SPEAKER_I = re.compile(r"\b(?:I|yo|eu|je|j'|ich)\s*$", re.IGNORECASE)
_PREFIX = (
    r"^(?:(?:please|pls|plz|kindly|ok|okay|now|hey|hi|so|and|also|then|quick|just|"
    r"(?:can|could|would|will)\s+(?:you|u)(?:\s+please)?|i\s+(?:need|want|would\s+like|'d\s+like)\s+(?:you\s+)?to|"
    r"help\s+me(?:\s+to)?|i\s+need\s+help\s+(?:to|with)|por\s+favor|puedes|podrías|pode|podes|"
    r"você\s+pode|s'il\s+te\s+pla[iî]t|stp|peux-tu|pouvez-vous|bitte|kannst\s+du|könntest\s+du)[,:\s]+)*"
)
_REQUEST = re.compile(
    _PREFIX
    + r"(?:translate|summari[sz]e|sum\s+up|rewrite|re-write|rephrase|paraphrase|reword|proofread|"
    r"correct|edit|polish|shorten|expand|continue|complete|improve|simplify|write|draft|compose|"
    r"generate|create|make\s+up|make\s+(?:this|it|that|these)\b|come\s+up\s+with|give\s+me\s+(?:a|an|some|\d+)|tell\s+me\s+a|turn|"
    r"convert|reformat|respond\s+to|reply\s+to|answer\s+this|critique|grade|spell-?check|tl;?dr|"
    r"roleplay|role-play|pretend|act\s+as|traduce|traducir|traduzca|traduza|traduz|traduzir|"
    r"resume|resuma|resumir|reescribe|reescreva|escribe|escreva|redacta|redija|corrige|corrija|"
    r"traduis|traduisez|traduire|résume|résumez|réécris|écris|écrivez|rédige|rédigez|"
    r"übersetze|übersetz|übersetzen|fasse|schreib|schreibe|formuliere|korrigiere|verfasse)\b",
    re.IGNORECASE,
)
_REQUEST_INSIDE = re.compile(
    r"\b(?:how\s+(?:do|would)\s+(?:you|I)\s+say|how\s+to\s+say|in\s+the\s+voice\s+of|"
    r"(?:can|could|would)\s+you\s+(?:please\s+)?(?:translate|summari[sz]e|rewrite|rephrase|"
    r"proofread|write|draft|compose)|tell\s+(?:him|her|them|my\s+\w+)\s+(?:that\s+)?I\b|"
    r"translat(?:e|ed|ion)\s+(?:into|to|in)\s+\w+|story\s+(?:where|about|in\s+which)|"
    r"(?:poem|song|story|essay|email|letter|tweet|post|bio|speech)\s+(?:where|about|in\s+which|"
    r"that\s+says|saying|from\s+the\s+perspective))",
    re.IGNORECASE,
)
_POINTS_AT_MATERIAL = re.compile(
    r"(?::\s*$|:\s+\S|\b(?:this|it|these|those|the\s+(?:above|following|text|email|message|"
    r"paragraph|sentence|sentences|draft|letter|passage|note)|my\s+(?:\w+\s+)?(?:cover\s+letter|"
    r"letter|email|essay|draft|text|resume|résumé|cv|bio|post|paragraph|message|speech|story|poem|"
    r"answer|reply|statement|profile|summary|intro|introduction)|below|above|following|esto|este|esta|"
    r"isto|isso|ceci|cela|ça|ce\s+texte|das|dies|diesen|folgenden|folgende)\b)",
    re.IGNORECASE,
)


_STANDING = re.compile(
    r"\b(?:always|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|by\s+default|every\s+time|"
    r"whenever|everything|all\s+(?:code|answers|responses|replies|examples|your)|siempre|sempre|toujours|"
    r"immer)\b",
    re.IGNORECASE,
)
_CREATIVE = re.compile(
    r"\b(?:story|stories|poem|song|lyrics|scene|dialogue|role-?play|pretend|act\s+as|script|"
    r"character|tale|fanfic|fiction|novel|screenplay|limerick|haiku|joke|historia|cuento|poema|"
    r"história|conto|histoire|conte|poème|Geschichte|Gedicht|Märchen)\b",
    re.IGNORECASE,
)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def words_of(text: str) -> set[str]:
    """Lower-case letter-only words of `text` (what the prefilters and the rule index look at)."""
    return set(_WORD.findall(text.lower()))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def asides(sentence: str) -> list[str]:
    """What `sentence` says in parentheses, each read as one more sentence ("Book the call
    for 10 my time (I'm in Manaus)"); the sentence keeps it too."""
    if "(" not in sentence:
        return []
    return [
        inner.strip()
        for inner in _PARENTHESIS.findall(sentence)
        if len(inner.split()) >= 2
    ]


def clauses(sentence: str, words: set[str] | None = None) -> list[str]:
    """A sentence cut where a new subject starts ("…, and I live in Leeds")."""
    if (
        "," not in sentence
        and ";" not in sentence
        and "—" not in sentence
        and "–" not in sentence
        and "¿" not in sentence
        and lexicon.JOINERS.isdisjoint(words if words is not None else _words(sentence))
    ):
        return [sentence]
    return [c.strip(" ,") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,")]


RequestScope = Literal["all", "from_here", "sentence"]


def request_kind(sentence: str, words: set[str] | None = None) -> RequestScope | None:
    """Whether `sentence` asks for text to be produced or transformed, and how much of the
    message is its material: "all" (the request points at it: "translate this:"),
    "from_here" (fiction: the request and the details that follow it), or "sentence"."""
    if lexicon.REQUEST_WORDS.isdisjoint(
        words if words is not None else _words(sentence)
    ):
        return None
    if _STANDING.search(sentence):
        return None  # "Please write all code with type hints" is an instruction, not a task
    if _REQUEST.match(sentence) or _REQUEST_INSIDE.search(sentence):
        if _POINTS_AT_MATERIAL.search(sentence):
            return "all"
        if _CREATIVE.search(sentence):
            return "from_here"
        return "sentence"
    return None


def reports(clause: str, words: set[str] | None = None) -> bool:
    """Whether `clause` introduces somebody else's words ("my boss says", "Mein Chef sagt"):
    the clause after it is reported speech."""
    if lexicon.REPORTED_WORDS.isdisjoint(
        words if words is not None else _words(clause)
    ):
        return False
    for m in _REPORTED.finditer(clause):
        if not _SPEAKER_I.search(clause[: m.start()]):
            return True
    return False


def non_fact(
    clause: str, fact_start: int = 0, words: set[str] | None = None
) -> NonFact | None:
    """Why `clause` states no fact about the user, None if it may. `fact_start` is where a
    candidate fact begins: reported speech only counts when it comes before the fact."""
    stripped = clause.rstrip()
    if (
        stripped.endswith("?")
        or stripped.startswith("¿")
        or _QUESTION_START.match(stripped)
    ):
        return "question"
    if words is None:
        words = _words(stripped)
    if not lexicon.HYPOTHETICAL_WORDS.isdisjoint(words) and (
        _HYPOTHETICAL.match(stripped) or _CONDITIONAL.search(stripped)
    ):
        return "hypothetical"
    if not lexicon.FICTION_WORDS.isdisjoint(words) and _FICTION.search(stripped):
        return "fiction"
    if lexicon.REPORTED_WORDS.isdisjoint(words):
        return None
    for m in _REPORTED.finditer(stripped):
        if m.start() <= fact_start and not _SPEAKER_I.search(stripped[: m.start()]):
            return "reported"
    return None
