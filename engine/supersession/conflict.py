"""What an arbitrary memory's content claims, so memories that did not come from extraction
(admin API, import, MCP, CLI) take part in the same slot and conflict handling as extracted
facts, and retrieval can tell two conflicting facts apart even when no slot links them.

`claim_of(content)` reads the content three ways, first hit wins:
1. as the user speaking ("I live in Oslo", "Ich wohne in Berlin"): the extraction pipeline;
2. as a stored fact ("Lives in Oslo", "Vit à Lyon", "User lives in Oslo"): every rule's
   template read backwards, the most specific template (most literal words) winning; when
   equally specific templates disagree ("Is vegetarian": a diet, a role or a trait?), the
   first-person sentence the template stands for is read by the pipeline to decide;
3. nothing: the memory claims no subject (it conflicts with nothing).

The subject is the one extraction gives the same fact (`slots.subject_of`), so an admin
"Lives in Bergen" supersedes an extracted "Lives in Oslo".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from memtap.engine.claims import Claim, conflict, less_specific, stored_claim
from memtap.engine.claims import words as _words
from memtap.engine.extraction import catalog
from memtap.engine.extraction.extract import extract_facts
from memtap.engine.extraction.keys import normalise, stable_key
from memtap.engine.extraction.rules import Rule
from memtap.engine.extraction.slots import subject_of
from memtap.engine.languages.registry import PACKS
from memtap.engine.text import lexicon
from memtap.engine.types import ExtractedFact, Memory

_ASSISTANT = "Assistant: "
# "User lives in Oslo", "The user's name is Ana": notes written about the user.
_ABOUT_USER = re.compile(r"^(?:the\s+)?user(?:'s|\s+is\b|\s+)\s*", re.IGNORECASE)
_FIELD = re.compile(r"\{(\w+)\}")
_END = ".!?;, "
# Third-person possessives back to the first person extraction keyed the object with.
_FIRST_EN = {"their": "my", "theirs": "mine", "them": "me", "they": "I"}
_NOT = re.compile(lexicon.NEGATION, re.IGNORECASE)
_THIRD_WORD = re.compile(r"\b(?:their|theirs|them|they)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Reverse:
    rule: Rule
    regex: re.Pattern[str]
    literal: int
    """Letters of the template outside its fields: how specific it is."""
    lead: str
    """The template's first word, folded, when a space follows it ("" otherwise): a text
    this regex matches starts with that word."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """What writing one memory does to the live memories about the same subject."""

    supersede: tuple[str, ...]
    """Ids that become history, replaced by `by`."""
    by: str
    kept: str | None = None
    """Set when the new memory itself is history at once (a less specific restatement of,
    or older than, the live memory `kept`)."""
    valid_to: str = ""
    """When the new memory stopped being current, with `kept`."""


def subject_for(content: str) -> str | None:
    """The supersession subject of a memory's content, None when it states no known fact."""
    claim = claim_of(content)
    return claim.subject if claim is not None else None


CLAIM_CACHE_ENTRIES = 16384
CLAIM_CACHE_MAX_CHARS = 400
"""Claims are read again for every retrieval's candidates and every write's rivals: the
claims of up to this many contents of up to this length are kept (~5 MB for facts of
usual length, ~20 MB at most); a longer content is read each time."""


__all__ = [
    "Claim",
    "Resolution",
    "claim_of",
    "claim_of_memory",
    "conflict",
    "resolve",
    "subject_for",
]


def claim_of_memory(memory: Memory) -> Claim | None:
    """The claim the worker stored with `memory`, read from its content when it has none
    (rows written before claims were stored, admin and import writes)."""
    has, claim = stored_claim(memory)
    return claim if has else claim_of(memory.content)


def claim_of(content: str) -> Claim | None:
    if _built_at != catalog.version():
        _rebuild()  # a pack was registered: its templates are read back too
    if len(content) > CLAIM_CACHE_MAX_CHARS:
        return _read_claim(content)
    return _cached_claim(content)


def _read_claim(content: str) -> Claim | None:
    text = " ".join(content.split()).rstrip(_END)
    if not text:
        return None
    prefix = ""
    if text.startswith(_ASSISTANT):
        text, prefix = text[len(_ASSISTANT) :], "assistant-"
    claim = _spoken(text) or _stored(text) or _stored(_about_user(text))
    if claim is None or not prefix:
        return claim
    return Claim(
        prefix + claim.subject, claim.slot, claim.family, claim.polarity, claim.obj
    )


_cached_claim = lru_cache(maxsize=CLAIM_CACHE_ENTRIES)(_read_claim)


def resolve(new: Memory, claim: Claim, others: Sequence[Memory]) -> Resolution:
    """Pure: the live memories `others` about `claim.subject` (not `new`) meet `new`.
    Two multi-valued facts of the same polarity are both true and stay. Of the rest, a
    newer one (an import of an older memory) or a richer one keeps its place and `new` is
    history at once; otherwise each is replaced by `new`."""
    keeper: Memory | None = None
    rivals: list[Memory] = []
    for other in others:
        theirs = claim_of(other.content)
        if (
            theirs is not None
            and theirs.subject == claim.subject
            and not claim.single_valued
            and theirs.polarity == claim.polarity
        ):
            continue  # "Likes sushi" twice, "Is allergic to X" and "... to X and Y"
        rivals.append(other)
        stays = other.updated_at > new.updated_at or (
            theirs is not None
            and theirs.subject == claim.subject
            and less_specific(claim, theirs)
        )
        if stays and (keeper is None or other.updated_at > keeper.updated_at):
            keeper = other
    if keeper is None:
        return Resolution(tuple(o.id for o in rivals), new.id)
    rest = tuple(o.id for o in rivals if o.id != keeper.id)
    until = max(keeper.updated_at, new.updated_at)
    return Resolution(rest, keeper.id, kept=keeper.id, valid_to=until)


# -- reading ---------------------------------------------------------------------------------
def _spoken(text: str) -> Claim | None:
    facts = extract_facts(text, "user")
    return _from_fact(facts[0]) if facts else None


def _from_fact(fact: ExtractedFact) -> Claim:
    obj = fact.content
    for reverse in _reverses_matching(fact.content):
        if reverse.rule.family == fact.family:
            obj = reverse.regex.fullmatch(fact.content).group("obj")  # type: ignore[union-attr]
            break
    return Claim(fact.subject, fact.slot, fact.family, fact.polarity, obj)


def _about_user(text: str) -> str:
    rest = _ABOUT_USER.sub("", text, count=1)
    if rest == text or not rest:
        return ""
    if text.lower().startswith(("user is ", "the user is ")):
        rest = "is " + rest
    return rest[0].upper() + rest[1:]


def _stored(text: str) -> Claim | None:
    if not text:
        return None
    spoken = _as_spoken(text)
    if spoken is not None:
        return spoken
    found = _reverses_matching(text)
    if not found:
        return None
    best = max(r.literal for r in found)
    claims = [_claim(r, text) for r in found if r.literal == best]
    kept = [c for c in claims if c is not None]
    # Equally specific templates that disagree: a slot is the safer reading (it supersedes
    # only within its slot), and rule order breaks the rest.
    kept.sort(key=lambda c: c.slot is None)
    return kept[0] if kept else None


def _claim(reverse: _Reverse, text: str) -> Claim | None:
    m = reverse.regex.fullmatch(text)
    if m is None:
        return None
    obj = m.group("obj").strip()
    if not obj or not any(ch.isalnum() for ch in obj):
        return None
    rule = reverse.rule
    keyed = _THIRD_WORD.sub(_first_word, obj)
    slot = rule.slot_for(keyed, m.groupdict().get("what"))
    polarity = rule.polarity
    if m.groupdict().get("neg") or _NOT.match(obj):
        polarity = "negative"
    subject = subject_of(slot, rule.family, stable_key(rule.family, keyed))
    return Claim(subject, slot, rule.family, polarity, obj)


def _as_spoken(text: str) -> Claim | None:
    """The stored fact read as the first-person sentence it stands for ("Is a nurse" ->
    "I am a nurse"), kept only when the pipeline stores that sentence as `text` again."""
    wanted = normalise(text)
    words = set(_words(text))
    near: ExtractedFact | None = None
    for sentence in _first_person(text):
        for fact in extract_facts(sentence, "user"):
            if normalise(fact.content) == wanted:
                return _from_fact(fact)
            theirs = set(_words(fact.content))
            if near is None and len(theirs & words) * 2 >= len(theirs):
                near = fact  # "Is not vegetarian any more" is stored "Is no longer vegetarian"
    return _from_fact(near) if near is not None else None


def _first_person(text: str) -> list[str]:
    lower = text.lower()
    out: list[str] = []
    for pack in PACKS.values():  # "Es X" was "Soy X": each pack's copula and "have"
        for third, forms in pack.first_person:
            if lower.startswith(third):
                out += [form + text[len(third) :] for form in forms]
    head, _, rest = text.partition(" ")
    if lower.startswith("no longer "):
        head, _, rest = text[len("no longer ") :].partition(" ")
        head = "no longer " + (_base_verb(head.lower()) or head)
    verb = _base_verb(head.lower()) if not head.startswith("no longer") else head
    if verb is not None and rest:
        out.append(f"I {verb} " + _THIRD_WORD.sub(_first_word, rest))
    if lower.startswith(("name is ", "their ")):
        out.append("My " + _THIRD_WORD.sub(_first_word, text.partition(" ")[2]))
        if lower.startswith("name is "):
            out[-1] = "My name is " + text[len("name is ") :]
    return out


def _first_word(m: re.Match[str]) -> str:
    # _THIRD_WORD ignores case, so "THEİR" and "theır" reach here too: folded like it folds.
    return _FIRST_EN[_fold(m.group(0))]


def _base_verb(word: str) -> str | None:
    """English third person singular -> base form ("lives" -> "live"); None otherwise."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if (
        len(word) < 4
        or not word.isalpha()
        or not word.endswith("s")
        or word.endswith("ss")
    ):
        return None
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "oes", "zes")):
        return word[:-2]
    return word[:-1]


_IRREGULAR = {"is": "am", "has": "have", "does": "do"}


def _reverses_matching(text: str) -> list[_Reverse]:
    # Only the templates led by the text's first word (and the few led by a field) can
    # match it: ~30 regexes tried instead of all ~500 (retrieval reads a claim per hit).
    first = text.split(None, 1)
    candidates = _BY_LEAD.get(_fold(first[0]), _UNLED) if first else _UNLED
    return [r for r in candidates if r.regex.fullmatch(text)]


def _fold(word: str) -> str:
    # IGNORECASE matches the dotted and dotless i of Turkish to "i"; casefold alone does not.
    return word.translate(_DOTTED_I).casefold()


_DOTTED_I = {ord("İ"): "i", ord("ı"): "i"}


def _reverse(rule: Rule, template: str) -> _Reverse | None:
    if "{obj}" not in template:
        return None
    parts = _FIELD.split(template)
    pattern, literal = [], 0
    for i, part in enumerate(parts):
        if i % 2:
            lazy = "" if part == "obj" else "?"
            pattern.append(f"(?P<{part}>.+{lazy})")
        else:
            literal += sum(ch.isalpha() for ch in part)
            pattern.append(re.escape(part).replace(r"\ ", r"\s+"))
    if literal == 0:
        return None  # a bare "{obj}" template (events) would claim every text
    head, space, _ = parts[0].partition(" ")
    return _Reverse(
        rule,
        re.compile("".join(pattern), re.IGNORECASE | re.DOTALL),
        literal,
        _fold(head) if head and space else "",
    )


def _build() -> tuple[_Reverse, ...]:
    seen: set[tuple[int, str]] = set()
    out: list[_Reverse] = []
    for position, rule in enumerate(catalog.ALL_RULES):
        for template in dict.fromkeys(rule.templates.values()):
            reverse = _reverse(rule, template)
            if reverse is not None and (position, template) not in seen:
                seen.add((position, template))
                out.append(reverse)
    return tuple(out)


def _by_lead(
    reverses: tuple[_Reverse, ...],
) -> tuple[dict[str, tuple[_Reverse, ...]], tuple[_Reverse, ...]]:
    """Per first word, the reverses that may match a text starting with it, in rule order
    (the readers take the first of a family and break ties by that order)."""
    unled = tuple(r for r in reverses if not r.lead)
    leads = {r.lead for r in reverses if r.lead}
    by_lead = {
        lead: tuple(r for r in reverses if r.lead in (lead, "")) for lead in leads
    }
    return by_lead, unled


def _rebuild() -> None:
    """The reverses again, after a pack was registered (and no claim read before it)."""
    global _REVERSES, _BY_LEAD, _UNLED, _built_at
    _REVERSES = _build()
    _BY_LEAD, _UNLED = _by_lead(_REVERSES)
    _built_at = catalog.version()
    _cached_claim.cache_clear()


_REVERSES = _build()
_BY_LEAD, _UNLED = _by_lead(_REVERSES)
_built_at = catalog.version()
