"""Pure fact extraction: `extract_facts(text, role) -> list[ExtractedFact]`.

Steps: keep only what the user says (`speech`), split it into sentences and clauses
(`clauses`), drop requests to produce or transform text and clauses that state no fact
(questions, hypotheticals, fiction, reported speech), try the rules whose trigger words occur
in a clause (`catalog`, in priority order; at most one fact per rule group and clause), keep
the whole object (`objects`), refuse bare-pronoun and second-person objects (a pronoun the
previous fact resolves is replaced by it), turn it to third person, name its slot and subject
(`slots`) and dedupe by a stable key (`keys`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from memtap.engine.extraction.catalog import INDEX
from memtap.engine.extraction.clauses import (
    asides,
    clauses,
    non_fact,
    reports,
    request_kind,
    sentences,
    words_of,
)
from memtap.engine.extraction.keys import (
    MAX_CONTENT_CHARS,
    normalise,
    sanitise,
    stable_key,
)
from memtap.engine.extraction.objects import (
    MAX_OBJECT_CHARS,
    clean_object,
    is_bare_pronoun,
    is_deictic,
    is_second_person,
    strip_time,
    third_person,
    third_singular,
)
from memtap.engine.extraction.rules import TYPE_OF, Rule
from memtap.engine.extraction.self_statement import (
    self_statement,
    standing_instruction,
)
from memtap.engine.extraction.slots import subject_of
from memtap.engine.extraction.speech import MAX_INPUT_CHARS, strip_injected, user_speech
from memtap.engine.extraction.subjectless import in_subject_order, with_subject
from memtap.engine.languages.registry import PACKS
from memtap.engine.text import lexicon
from memtap.engine.types import ExtractedFact

Role = Literal["user", "assistant"]

MAX_FACTS = 32
MAX_CLAUSE_CHARS = 200
MAX_ASIDES = 16
"""Parenthesised asides of one message read as sentences of their own."""
MAX_NET_TRIES = 64
"""Clauses of one message the net tries: a message of hundreds of clauses is a pasted text,
and the net costs ~80 µs a clause."""
MAX_RESTATED_CHARS = 400
"""Longer clauses are read by the rules only: no subject restored, no self-statement (which
is at most 30 words), so a pasted page costs what it cost before."""

__all__ = [
    "MAX_CONTENT_CHARS",
    "MAX_FACTS",
    "MAX_INPUT_CHARS",
    "MAX_OBJECT_CHARS",
    "extract_facts",
    "normalise",
    "sanitise",
    "stable_key",
    "strip_injected",
]

# What may precede an object that opens its sentence (so its capital is not a name's).
_SENTENCE_START = re.compile(lexicon.SENTENCE_START, re.IGNORECASE)
# In an instruction "you" is the assistant: "keep your answers short" -> "keep its answers short".
_ABOUT_ASSISTANT = re.compile(r"\b(?:your|yours|yourself)\b", re.IGNORECASE)
_ASSISTANT = {"your": "its", "yours": "its", "yourself": "itself"}
_RESOLVING = frozenset({"it", "them"})
_WORDS = re.compile(r"[\w']+")
_NOUN_AFTER = re.compile(
    r"\b(?:got|bought|adopted|built|made|have|has|use|uses|using)\s+(?P<noun>(?:a|an|the|my|our)\s+.+)$",
    re.IGNORECASE,
)


class _Reading:
    """State of one message being read: facts so far and the last thing a pronoun may mean."""

    __slots__ = ("changed", "facts", "last_object", "net_tries", "role")

    def __init__(self, role: Role) -> None:
        self.role: Role = role
        self.facts: dict[str, ExtractedFact] = {}
        self.last_object: str | None = None
        self.changed: str | None = None
        """The family of a single value the user gave up in the clause just read ("I'm
        not vegan any more"): the next clause may say the new one ("I eat fish now")."""
        self.net_tries = 0
        """Clauses no rule read, each tried by the net so far (at most MAX_NET_TRIES)."""


def extract_facts(text: str, role: Role = "user") -> list[ExtractedFact]:
    """Facts stated in `text` by `role`, deduplicated by key, in order of appearance."""
    if not text:
        return []
    reading = _Reading(role)
    for sentence, sentence_words in _spoken_sentences(user_speech(text)):
        reported = supposed = False
        parts = clauses(sentence, sentence_words)
        spans = _spans(sentence, parts) if len(parts) > 1 else None
        for index, clause in enumerate(parts):
            words = sentence_words if len(parts) == 1 else words_of(clause)
            if supposed:
                break  # "Angenommen, ich wohne in Wien – …": the rest is supposed too
            if (
                not reported
            ):  # "Mein Chef sagt, ich …": what follows a report is not the user
                _read_part(sentence, parts, spans, index, words, reading)
            reported = reported or reports(clause, words)
            supposed = len(parts) > 1 and non_fact(clause, words=words) in (
                "hypothetical",
                "fiction",
            )
            if len(reading.facts) >= MAX_FACTS:
                return list(reading.facts.values())
    return list(reading.facts.values())


def _read_part(
    sentence: str,
    parts: list[str],
    spans: list[tuple[int, int]] | None,
    index: int,
    words: set[str],
    reading: _Reading,
) -> None:
    """One clause through the rules, again with the subject it left out, and when no rule
    read it, through the net for what the user says about themselves."""
    clause = parts[index]
    before = set(reading.facts)
    changed, reading.changed = reading.changed, None
    read = _read_clause(clause, words, reading)
    reading.changed = next(
        (
            fact.family
            for key, fact in reading.facts.items()
            if key not in before and fact.polarity == "negative" and fact.slot
        ),
        None,
    )
    if len(clause) > MAX_RESTATED_CHARS:
        return  # a self-statement is a sentence, not a page: the rules alone read it
    restored = with_subject(clause) or in_subject_order(clause)
    if restored is not None:
        read_first = {reading.facts[k].family for k in reading.facts.keys() - before}
        seen = set(reading.facts)
        read = _read_clause(restored, words_of(restored), reading) or read
        for key in reading.facts.keys() - seen:  # a family read once is not read twice
            if reading.facts[key].family in read_first:
                del reading.facts[key]
    if not read and reading.role == "user" and reading.net_tries < MAX_NET_TRIES:
        reading.net_tries += 1
        said = _with_shared_subject(sentence, parts, spans, index)
        said_words = words if said is clause else words_of(said)
        _keep_self_statement(said, restored, said_words, reading, changed)


def _spans(sentence: str, parts: list[str]) -> list[tuple[int, int]]:
    """Where each clause stands in its sentence, found in order (one pass)."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for part in parts:
        start = sentence.find(part, cursor)
        if start < 0:
            start = cursor
        spans.append((start, start + len(part)))
        cursor = start + len(part)
    return spans


def _with_shared_subject(
    sentence: str, parts: list[str], spans: list[tuple[int, int]] | None, index: int
) -> str:
    """The clause with the few words before it when they share its subject ("Meine Frau
    und | ich haben zwei Kinder"), so what is quoted is what the user said."""
    if index == 0 or spans is None or len(words_of(parts[index - 1])) > 3:
        return parts[index]
    joiner = sentence[spans[index - 1][1] : spans[index][0]].strip(" ,").lower()
    if not any(joiner in pack.joiners for pack in PACKS.values()):
        return parts[index]  # "I tried it, I go climbing…": two clauses, two subjects
    return sentence[spans[index - 1][0] : spans[index][1]]


def _keep_self_statement(
    clause: str,
    restored: str | None,
    words: set[str],
    reading: _Reading,
    changed: str | None = None,
) -> None:
    """What the user said about themselves that no rule read, kept as they said it."""
    if non_fact(clause, words=words) is not None:
        return
    said = (
        (changed is not None and self_statement(clause, after_change=changed))
        or self_statement(clause, restored)
        or standing_instruction(clause)
    )
    if said is None:
        return
    key = stable_key(said.family, said.content)
    reading.facts.setdefault(
        key,
        ExtractedFact(
            type=TYPE_OF.get(said.family, "factual"),
            category=said.family,
            content=sanitise(said.content),
            key=key,
            subject=key,  # its own subject: it claims no slot, so it supersedes nothing
            polarity=said.polarity,
            role="user",
            family=said.family,
            clause=sanitise(clause, MAX_CLAUSE_CHARS),
            lang=said.lang,
        ),
    )


def _spoken_sentences(text: str) -> list[tuple[str, set[str]]]:
    kept: list[tuple[str, set[str]]] = []
    asides_left = MAX_ASIDES
    for sentence in sentences(text):
        words = words_of(sentence)
        scope = request_kind(sentence, words)
        if scope == "all":
            return []  # the message is material for a task, not the user speaking
        if scope == "from_here":
            break
        if scope is None:
            kept.append((sentence, words))
            # an aside of a sentence that is a request is material like the sentence
            for aside in asides(sentence)[:asides_left]:
                kept.append((aside, words_of(aside)))
                asides_left -= 1
    return kept


def _read_clause(clause: str, words: set[str], reading: _Reading) -> bool:
    """Whether a rule read a fact in `clause` (kept, or already read from the message)."""
    candidates = INDEX.candidates(words)
    if not candidates:
        return False
    kind: str | None = "unknown"  # classified once, when a first rule matches
    used: set[str] = set()
    for rule in candidates:
        group = rule.exclusive_group
        if group in used:
            continue
        m = rule.regex.search(clause)
        if m is None:
            continue
        if kind == "unknown":
            kind = non_fact(clause, fact_start=len(clause), words=words)
        stated_anyway = kind == "question" and rule.presupposed
        if kind in ("question", "hypothetical", "fiction") and not stated_anyway:
            return False
        if kind == "reported" and non_fact(clause, m.start(), words) == "reported":
            continue
        fact = _fact(rule, m, clause, reading)
        if fact is None:
            continue
        used.add(group)
        if fact.key not in reading.facts:
            reading.facts[fact.key] = fact
    return bool(used)


def _fact(
    rule: Rule, m: re.Match[str], clause: str, reading: _Reading
) -> ExtractedFact | None:
    obj = clean_object(m.group("obj"), rule.stop)
    if rule.family not in ("event", "goal"):
        obj = strip_time(obj)
    if not obj or not any(ch.isalnum() for ch in obj):
        return None
    if is_bare_pronoun(obj):
        resolved = _resolve(obj, reading.last_object)
        if resolved is None:
            return None  # "I love it" with nothing before it to say what "it" is
        obj = resolved
    elif is_deictic(obj):
        return None  # "this bug", "that file": about the conversation, not the user
    if rule.family != "instruction" and is_second_person(obj):
        return None  # "I love your photos" is about the other person
    found = m.groupdict()
    if rule.accept is not None and not rule.accept(m, obj):
        return None
    if (
        rule.polarity == "positive"
        and "neg" not in found
        and _negated(clause, m, obj, rule.lang)
    ):
        return None  # "Não uso redes sociais": a positive rule must not read a negated verb
    template = rule.template_for(found.get(rule.key_group) or "")
    groups = {
        name: third_person(
            clean_object(value, rule.stop) if name != "verb" else value, rule.lang
        )
        for name, value in found.items()
        if value is not None and name != "obj" and "{" + name + "}" in template
    }
    groups["obj"] = third_person(obj, rule.lang)
    if "when" in groups:
        groups["when"] = groups[
            "when"
        ].lower()  # "Every morning I …" -> "… every morning"
    if "{verb_s}" in template:
        groups["verb_s"] = third_singular(found.get("verb") or "")
    if rule.family == "instruction":
        groups["obj"] = _ABOUT_ASSISTANT.sub(
            lambda s: _ASSISTANT[s.group(0).lower()], groups["obj"]
        )
    if rule.family != "identity" and _SENTENCE_START.fullmatch(
        clause[: m.start("obj")]
    ):  # a name opening its message keeps its capital ("Marco here")
        groups["obj"] = _decapitalise(
            groups["obj"]
        )  # "Keep answers short" -> "… to keep …"
    content = _capitalise(template.format_map(_Blank(groups)), rule.keep_case)
    polarity = rule.polarity
    if polarity == "positive" and (_negation(rule.lang).match(obj) or found.get("neg")):
        polarity = "negative"  # "I usually don't eat meat"
    slot = rule.slot_for(obj, groups.get("what"))
    prefix = ""
    if reading.role == "assistant":
        content = f"Assistant: {content}"
        prefix = "assistant-"
    content = sanitise(content)
    if rule.resolvable:
        reading.last_object = obj
    else:
        noun = _NOUN_AFTER.search(obj)
        if noun:
            reading.last_object = noun.group("noun")
    return ExtractedFact(
        type=rule.type,
        category=rule.family,
        content=content,
        key=prefix + stable_key(rule.family, content),
        subject=prefix + subject_of(slot, rule.family, stable_key(rule.family, obj)),
        polarity=polarity,
        role=reading.role,
        family=rule.family,
        slot=slot,
        clause=sanitise(clause, MAX_CLAUSE_CHARS),
        lang=rule.lang,
    )


def _negated(clause: str, m: re.Match[str], obj: str, lang: str) -> bool:
    # per language: "no" is "in the" in Portuguese
    negators = PACKS[lang].negators
    before = _WORDS.findall(clause[: m.start("obj")].lower())[-3:]
    if any(w in negators or w.endswith("n't") or w.startswith("n'") for w in before):
        return True
    return obj.lower().endswith((" nicht", " nicht mehr", " pas"))


@lru_cache(maxsize=16)
def _negation(lang: str) -> re.Pattern[str]:
    """How an object negated in `lang` opens ("don't eat meat", "nunca como carne")."""
    negations = PACKS[lang].negations if lang in PACKS else ""
    return re.compile(r"(?:" + (negations or r"(?!x)x") + r")\b", re.IGNORECASE)


def _resolve(obj: str, last_object: str | None) -> str | None:
    first, _, rest = obj.partition(" ")
    if last_object is None or first.lower() not in _RESOLVING:
        return None
    noun = re.sub(r"^(?:a|an|my|our)\s+", "the ", last_object, flags=re.IGNORECASE)
    return f"{noun} {rest}".strip()


def _decapitalise(text: str) -> str:
    first, _, rest = text.partition(" ")
    if first[1:].islower():  # not an acronym or a name like "GitHub"
        first = first.lower()
    return f"{first} {rest}".rstrip()


def _capitalise(text: str, keep_case: bool) -> str:
    text = text.strip()
    if keep_case or not text:
        return text
    return text[0].upper() + text[1:]


class _Blank(dict[str, str]):
    """Template fields a match did not fill format as nothing."""

    def __missing__(self, key: str) -> str:
        return ""
