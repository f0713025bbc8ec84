"""What one language pack holds: the words of a language that memtap reads, as data.

A pack is data only: regular-expression fragments and word lists, typed by `LanguagePack`.
The code that reads them is written once for every language: the rule shapes in
`engine/extraction/shapes.py` turn each `Phrase` of a pack into a rule, and the text tools in
`engine/text/` read the words every layer shares (negators, joiners, fillers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

Template = str | Mapping[str, str]
"""The stored third-person content: one template, or one per value of the `verb` group
(lower case, spaces collapsed; "" is the default)."""


Unit = str
"""day | week | weekend | month | year"""


@dataclass(frozen=True, slots=True)
class DateWords:
    """The words of relative dates in one language, read by `engine/text/dates.py`: fixed day
    words (offset in days from the day said), relative periods (direction × unit, written out
    because gender and word order differ), number words, unit words, the "N units ago" / "in
    N units" frames, weekdays with the frames that name one, and the markers that make a bare
    weekday point forward (or, in German, backward)."""

    days: dict[str, int]
    """"yesterday" -> -1"""
    periods: dict[str, tuple[Unit, int]]
    """"last weekend" -> ("weekend", -1)"""
    numbers: dict[str, int]
    units: dict[str, Unit]
    ago: tuple[str, ...]
    """Regex frames around `{n}` and `{unit}` for the past."""
    ahead: tuple[str, ...]
    weekdays: dict[str, int]
    """Monday = 0."""
    weekday_frames: tuple[tuple[str, int], ...]
    """Regex frames around `{wd}`: direction -1 (last), +1 (next), 0 (by tense)."""
    future: str
    """Regex: the clause speaks of what is to come (a bare weekday then points forward)."""
    past: str = r"(?!x)x"
    """Regex: the clause speaks of the past, where the bare default is forward (German)."""
    bare_forward: bool = False
    not_a_date: dict[str, str] = field(default_factory=dict)
    """Day words that are a date only when not a noun: a look-behind written before them
    ("la mañana" is the morning, "am Morgen" too)."""


def periods(
    table: dict[int, dict[Unit, tuple[str, ...]]],
) -> dict[str, tuple[Unit, int]]:
    return {
        phrase: (unit, direction)
        for direction, units in table.items()
        for unit, phrases in units.items()
        for phrase in phrases
    }


@dataclass(frozen=True, slots=True)
class Example:
    """What a phrase reads: `said` by the user is kept as `kept` (the fact's content)."""

    said: str
    kept: str


@dataclass(frozen=True, slots=True)
class Phrase:
    """One way a language says one shape of fact.

    `shape` names a shape of `engine/extraction/shapes.py` (family, polarity, slot, group and
    checks are the shape's); `rx` is the phrase with a named group `obj` (and optionally
    `verb`, `what`, `prep`, `adj`); `template` the stored content; `triggers` the words of
    which one must occur in a clause for the phrase to be tried."""

    shape: str
    rx: str
    template: Template
    triggers: str
    keep_case: bool = False
    """Keep the content's case as written (German nouns)."""
    examples: tuple[Example, ...] = ()
    key: str = "verb"
    """The group whose value picks the template when `template` is a mapping."""
    resolvable: bool = False
    """The object can stand for a later "it" ("I got a Steam Deck. I love it.")."""
    case_sensitive: bool = False
    """The expression tells names by their capitals ("(?i:…)" marks what is not)."""
    stop: str = ""
    """Where the object ends, when not where the shape says: "object" (the pack's `stop`),
    "role" (`role_stop`), "place" (`place_stop`), "statement" (`statement_stop`) or
    "name" (`name_stop`)."""
    presupposed: bool = False
    """What the phrase reads holds even in a question ("Gift ideas for my sister Hannah?")."""
    own_start: bool = False
    """The expression says itself where it may start ("(?:^|,)…"); otherwise it starts at the
    clause's start or after a space or an opening mark."""


@dataclass(frozen=True, slots=True)
class NamedRelatives:
    """A relative or pet named after the user's possessive ("Minha esposa Carolina"): kept in
    English with the word as said (`Their wife (esposa) is called Carolina`), so a question
    asked in English finds it."""

    possessive: str
    """The user's possessive (regex: "(?:mi|nuestr[oa])")."""
    called: str
    """"is called" between the word and the name (regex, optional in the sentence)."""
    words: Mapping[str, str]
    """Each relative or pet word -> its English word."""
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True, slots=True)
class LanguagePack:
    """The words of one language. Every field but `code` has a default, so a small pack (a
    handful of phrases) is a complete language."""

    code: str
    """ISO 639-1 code, stored with each fact (`lang`)."""
    phrases: tuple[Phrase, ...] = ()
    """In priority order: the first phrase of a group that reads a clause wins."""
    stop: str = r"\s+(?:and|but|because)\b|[,;:(]|\s-\s"
    """Where an object ends: a joiner opening the next clause, a time phrase, punctuation
    ("": wherever a clause ends in any language, `extraction/objects.CLAUSE_END`)."""
    role_stop: str = r"\s+(?:at|for|and|but)\b|[,;:(]"
    """Where a job title ends ("ingeniero en Madrid" -> "ingeniero")."""
    place_stop: str = ""
    """Where a place ends ("Lisbon next spring"): "" = where the object ends."""
    name_stop: str = ""
    """Where a name ends ("" = the shared stop of every language: "Ana y …", "Jan aus …")."""
    statement_stop: str = ""
    """Where an object ends before the next statement of its clause ("… and I …", "… which
    …"): "" = where the object ends."""
    name_particles: frozenset[str] = frozenset()
    """Lower-case words inside a name ("de", "van"): "Ana de Souza" is one name."""
    not_names: frozenset[str] = frozenset()
    """Capitalised words that are no name ("I'm Fine", "I'm Back")."""
    not_signatures: frozenset[str] = frozenset()
    """Words before "here" or "again" that sign no name ("Same here", "Me again")."""
    not_a_name: frozenset[str] = frozenset()
    """Capitalised words after a relative that name none ("my sister Saturday")."""
    not_places: frozenset[str] = frozenset()
    """Capitalised words after "I'm in" that are no place ("I'm in Love")."""
    verbish: frozenset[str] = frozenset()
    """Words that open a task rather than an employer ("I work at fixing …")."""
    stance_verbs: str = ""
    """What a relative thinks, wants or says (a regex alternation): theirs, not a fact
    about the family."""
    articles: frozenset[str] = frozenset()
    """Articles, left out when a job title is read ("a nurse")."""
    role_words: frozenset[str] = frozenset()
    """Words that end a job title ("engineer", "nurse")."""
    role_suffixes: tuple[str, ...] = ()
    """Endings of job titles ("-ologist", "-ist")."""
    not_roles: frozenset[str] = frozenset()
    """Words ending like a job that are none ("list", "fan")."""
    not_a_job: str = ""
    """What makes a job word no job ("a terrible cook", "an amateur photographer")."""
    roles: str = ""
    relatives: str = ""
    relative_triggers: str = ""
    diets: str = ""
    """Diet words: a diet phrase's object that names one fills the `constraint.diet` slot."""
    languages: str = ""
    language_triggers: str = ""
    foreign: str = ""
    """A clause this matches reads as a neighbouring language sharing our verbs: not ours."""
    goal_verb_endings: tuple[str, ...] = ()
    """How an infinitive ends: a goal ("quiero aprender") needs one after its verb."""
    goal_verb_last: bool = False
    """The infinitive closes the clause instead of opening the object (German)."""
    not_goals: frozenset[str] = frozenset()
    """Infinitives that ask rather than plan ("quiero saber …")."""
    brief_words: tuple[str, ...] = ()
    """Starts of the style words that ask for length rather than tone ("breve", "kurz")."""
    indefinite_preps: frozenset[str] = frozenset()
    """Prepositions with an article that make an employer of a common noun ("numa startup")."""
    subjects: str = ""
    """The user as subject or owner: first-person pronouns and possessives, singular and
    plural (a regex alternation: "yo|mi|mis|nosotros|nuestro|nuestra")."""
    first_person_verbs: str = ""
    """First-person forms that open a clause without its subject ("soy", "moro"), in a
    language that drops it."""
    first_person_endings: tuple[str, ...] = ()
    """How a first-person present ends ("como", "bebo": "o"), in a language that drops the
    subject: read only where the user is known to speak of themselves."""
    negators: frozenset[str] = frozenset()
    """Words that negate the verb after them."""
    negations: str = ""
    """How a negated statement says it (a regex alternation, "not|don't|no\\s+longer"): an
    object that opens with one is negative, and so is a self-statement holding one."""
    aversions: str = ""
    """Verbs of refusing or disliking ("hate|can't\\s+stand"): a self-statement holding one
    is negative."""
    common: frozenset[str] = frozenset()
    """The language's commonest words: a quoted self-statement is stored with the language
    whose common words it uses most."""
    fillers: frozenset[str] = frozenset()
    """Words that open a clause and say nothing ("ok", "lol", "pues", "alors")."""
    trailing: tuple[str, ...] = ()
    """Words or phrases that close an object and add nothing ("too", "right now", "tbh")."""
    joiners: frozenset[str] = frozenset()
    """"and": what joins two clauses that may share their subject."""
    inverted_subjects: str = ""
    """First-person pronouns that follow the verb when something else opens the clause
    (German verb-second: "Inzwischen bevorzuge ich Helix"), a regex alternation: such a
    clause is read again in subject order ("ich bevorzuge Helix"). "" when the language
    does not invert."""
    now: str = ""
    """"now", "these days" (a regex alternation): said right after a value the user gave up
    ("I'm not vegan any more, I eat fish now"), a clause holding one states the new value."""
    clause_joiners: frozenset[str] = frozenset()
    """Words that join two clauses ("and", "but", "because"): a new subject after one starts a
    new clause; a sentence holding none (nor a comma) is one clause."""
    question_start: str = ""
    """How a question opens (a regex anchored with "^": "^(?:do|can)\\s+(?:I|you)\\b|…"):
    a clause opening so states no fact."""
    question_tail: str = ""
    """What opens a question after a statement, past a comma (a regex alternation, a word
    boundary after it: "j'habite à Lyon, tu connais …"): the question is its own clause."""
    hypothetical_leads: str = ""
    """Words that may come before a hypothetical's opening ("and", "so", "alors"), a regex
    alternation."""
    hypothetical: str = ""
    """How a hypothetical opens ("if", "suppose", "angenommen"), a regex alternation: a
    clause opening so states no fact."""
    hypothetical_words: frozenset[str] = frozenset()
    """The words of `hypothetical` and `conditional` (one must occur for either to be tried)."""
    conditional: str = ""
    """A conditional wish ("I would move to Berlin"), a regex searched in the clause."""
    fiction: str = ""
    """A clause set in fiction or a role ("in this story", "act as"), a regex alternation."""
    fiction_words: frozenset[str] = frozenset()
    """The words of `fiction` (one must occur for it to be tried)."""
    reported: str = ""
    """What introduces somebody else's words ("says", "dice que", "laut"), a regex
    alternation: what follows is reported speech, not the user."""
    reported_words: frozenset[str] = frozenset()
    """The words of `reported` (one must occur for it to be tried)."""
    request_prefix: str = ""
    """What may open a request before its verb ("please", "can you", "por favor"), a regex
    alternation."""
    request: str = ""
    """The verbs that ask for text to be produced or transformed ("translate", "escribe"),
    a regex alternation: a sentence opening with one is a task, not a fact."""
    request_words: frozenset[str] = frozenset()
    """The words of `request` and of the English requests said inside a sentence (one must
    occur for a request to be looked for)."""
    please: str = ""
    """"please" before an order about every answer ("Bitte keine …"), a regex alternation."""
    bans: str = ""
    """How an order about every answer opens as a ban ("no", "nada de", "keine"), a regex
    alternation: the instruction is negative."""
    order_negations: str = ""
    """Negations anywhere in an order ("never", "nunca", "nicht"): the instruction is
    negative."""
    speaker: str = ""
    """The user's "I" (a regex alternation: "je|j'"): "I said" before a report keeps it the
    user's."""
    request_inside: str = ""
    """A request said inside a sentence ("how do you say", "a poem about"), a regex."""
    material: str = ""
    """Words pointing at a request's material ("this", "the text below", "ceci"), a regex
    alternation: the whole message is the material."""
    creative: str = ""
    """Kinds of made-up text ("story", "poema"), a regex alternation: a request for one makes
    what follows it fiction."""
    request_standing: str = ""
    """What makes a request an instruction for every answer ("always", "all code"), a regex
    alternation."""
    order_standing: str = ""
    """What makes an order hold for every answer ("from now on", "désormais"; how to address
    the user: "duzen"), a regex alternation."""
    answer_words: str = ""
    """Words about the assistant's answers ("replies", "respuestas", "empfiehl…"), a regex
    alternation: an order without one is no standing instruction."""
    about_this: str = ""
    """Words pointing at this conversation's text ("this", "the email", "ça"), a regex
    alternation: an order holding one is about that text, not every answer."""
    greetings: str = ""
    """How a letter opens ("Dear", "Estimada", "Sehr geehrte"), a regex alternation: a letter
    written for someone else is not the user speaking."""
    signoffs: str = ""
    """How a letter closes ("Best regards", "Cordialement"), a regex alternation."""
    payload_words: str = ""
    """What names pasted material before a colon ("email", "texto", "Nachricht"), a regex
    alternation."""
    labels: frozenset[str] = frozenset()
    """Words that label a line ("note", "fyi", "hinweis"): "Note: …" is no speaker."""
    pronouns: frozenset[str] = frozenset()
    """Pronouns that say nothing as a whole object ("it", "isso", "ça")."""
    second_person: str = ""
    """"you" and "your" (a regex alternation): an object holding one is about the assistant."""
    end_words: frozenset[str] = frozenset()
    """Words that end an object by opening what follows it ("because", "which", "weil")."""
    third_person: Mapping[str, str] = field(default_factory=dict)
    """First-person possessives -> third person ("mi" -> "su"), for the stored content
    (English's own, with its contractions, is the English rules')."""
    self_subjects: str = ""
    """The user as the subject of a statement about themselves ("I'm", "moi je", "a gente"),
    a regex alternation, longest forms first."""
    self_verbs: str = ""
    """How a statement about the user opens without its subject (a regex alternation: "soy",
    "moro", French "on a", German "wohne" or "… geh ich")."""
    possessives: str = ""
    """The user's possessives before a partner ("my|our"): "my wife and I" is the user."""
    i_after_and: str = ""
    """The user's "I" after "and" ("my wife and I", "ma femme et moi"), a regex alternation."""
    frequency: str = ""
    """How often, said before the statement ("every morning", "todos los días"), a regex
    alternation."""
    not_about_user: str = ""
    """Words of the task at hand, the conversation or somebody else's words ("you", "this",
    "error", "today", "thanks"), a regex alternation: a clause holding one is no
    statement about the user."""
    consequences: str = ""
    """What opens a consequence or a contrast after a statement ("so", "because", "donc"), a
    regex alternation: the statement is what comes before it."""
    order_verbs: str = ""
    """Verbs of an order after a statement ("I was born in Lagos, write me a poem")."""
    family_words: Mapping[str, str] = field(default_factory=dict)
    """The words that name a fact's family, by family (a regex alternation each: "habit":
    "every|usually|…"): a statement the net keeps goes to the first family whose words it
    holds (the order is `lexicon.FAMILIES`)."""
    comma_stops: str = ""
    """What opens a new thought after a comma in an object ("…, I", "…, thanks", "…, y yo"),
    a regex alternation: the object ends before it."""
    sentence_openers: str = ""
    """Words that may open a sentence before a fact's object ("please", "always"), a regex
    alternation: an object after nothing but these opens its sentence, so its capital is no
    name's."""
    busy: str = ""
    """The user busy with something right now ("I'm", "estoy", "ich bin gerade"), a regex
    alternation: "I'm at the airport", "estoy escribiendo …" is the task."""
    deictic_preps: str = ""
    """Prepositions before a deictic object ("on this")."""
    deictic_objects: str = ""
    """An object that points at the conversation ("this bug", "the second option", "esto"), a
    regex alternation: no durable fact."""
    time_phrases: str = ""
    """A time phrase closing an object ("last year", "a few weeks ago"), a regex alternation:
    left out of the stored object."""
    time_ends: frozenset[str] = frozenset()
    """The last words of `time_phrases`: an object ending otherwise keeps its end."""
    intensifiers: frozenset[str] = frozenset()
    """Words after a pronoun that still say nothing ("it a lot", "that so much")."""
    chapters: str = ""
    """Chapter and scene words ("chapter", "Kapitel"): "Chapter 1." opens a manuscript."""
    chapter_numbers: str = ""
    """Number words after a chapter word ("one", "uno", "eins")."""
    book_parts: str = ""
    """"Prologue", "Epilog": a line holding one alone opens a manuscript."""
    tale_openings: str = ""
    """How a story opens ("once upon a time", "es war einmal"), a regex alternation."""
    clause_ends: str = ""
    """Where a fact's object ends when its phrase says nothing else: a joiner opening what
    follows ("because", "which", "weil"), a regex alternation (`objects.CLAUSE_END`)."""
    name_ends: str = ""
    """Where a name ends ("and", "from", "aus"), a regex alternation: the shared name stop."""
    scope_words: str = ""
    """Prepositions that open the scope of a choice ("tabs for YAML", "para Python")."""
    universal_scopes: str = ""
    """A scope that leaves nothing out ("for everything", "für alles", "para todo"), a
    regex alternation: such a choice is the domain's choice, not one of a scope's."""
    i_am: str = ""
    """"I am" and "we are" ("je suis", "ich bin"), a regex alternation: "I'm <who>" is the
    one self-statement kept with no family word."""
    mail_headers: str = ""
    """Header names of a pasted email ("Subject", "Asunto", "Betreff"), a regex alternation."""
    reply_lines: str = ""
    """The line above a quoted reply ("On … wrote:", "Am … schrieb"), a regex alternation."""
    passing: frozenset[str] = frozenset()
    """What follows "I am" when it is how the user is right now ("busy", "tired", "beim",
    "chez"): no identity."""
    empty_words: frozenset[str] = frozenset()
    """Words that add only emphasis ("really", "muito", "sehr"): no content of a statement."""
    task_words: str = ""
    """Words of the task at hand ("error", "bug", "this"), a regex alternation: an event
    holding one is about the conversation ("just got this error")."""
    pointing_end: str = ""
    """Words that point at the conversation ("this|that|it", as written): an event ending on
    one is about it ("I just finished that")."""
    output_words: str = ""
    """What a program gives back ("error", "output", "response"), a regex alternation: a
    dated event about one is the task ("got a weird response yesterday")."""
    use_verbs: tuple[str, ...] = ()
    """How a verb of use starts ("use", "am using", "rely"): "I use X" names the user's stack
    whatever X is; another verb of building or running, only when X is technical."""
    aids: str = ""
    """What the user uses that is no stack ("a screen reader", "a wheelchair"), a regex read
    at the object's start."""
    passing_states: str = ""
    """How a stack is for now ("down", "broken", "a mess"), a regex read at the object's
    start: no fact."""
    being_verbs: frozenset[str] = frozenset()
    """"is", "are", "'s": after one a stack's object states a fact only when it names
    something (a capital, a digit, a technical word)."""
    chores: str = ""
    """Things made as a task ("a function", "an email", "dinner"), a regex read at the
    object's start: no project."""
    loose_verbs: frozenset[str] = frozenset()
    """Verbs of a project that are one only for something technical ("running", "making")."""
    not_goal_starts: tuple[str, ...] = ()
    """How "my goal is …" starts when it is no goal ("simple", "to ask")."""
    technical: str = ""
    """Words that make an object technical (a tool, a platform): "docker|python|…"."""
    style: str = ""
    """How answers should read ("concise", "bullet points"): an instruction about it holds
    for every answer."""
    behaviour: str = ""
    """How the assistant should behave ("ask before …"), as an instruction's object opens."""
    standing: str = ""
    """An instruction said to hold from now on ("from now on", "always")."""
    length: str = ""
    """Style words about length: the instruction fills `instruction.length`."""
    tone: str = ""
    """Style words about tone: the instruction fills `instruction.tone`."""
    task_verbs: frozenset[str] = frozenset()
    """Verbs of the task at hand ("fix", "know"): a goal opening with one is the task."""
    horizon: str = ""
    """When a plan is for ("this year", "by June"): with one, a goal is a plan even when it
    opens with a task verb."""
    deictic: str = ""
    """Words pointing at the conversation ("this|that|it"): a goal about them is the task."""
    named_relatives: NamedRelatives | None = None
    dates: DateWords | None = None
    """Relative dates ("ayer", "la semana pasada"), resolved against the turn's time."""
    first_person: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The copula and "have", third person -> first ("es " -> "Soy "): what a stored "Es X"
    was when the user said it."""


def words(text: str) -> frozenset[str]:
    """A word list written as one string ("saber preguntar ver")."""
    return frozenset(text.split())
