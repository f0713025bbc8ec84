"""The words the engine's readers share across languages, each joined over the registered
packs (`engine/languages/`) into one pattern or word set: what makes a clause a question, a
request, a hypothetical, fiction or reported speech, what joins two clauses, who the user is
when they speak (the subject lexicon), what opens a statement about them, what names a fact's
family, what ends or empties an object. These are read whatever the language of the text;
a pack's field says what each of its words is for (`pack.LanguagePack`). Written here: the
choice domains (product names, no language's), the order of the families and the tail of
"doing now" (an -ing or -ndo form, a place word).
"""

from __future__ import annotations

from memtap.engine.languages.registry import PACKS


def _either(parts: list[str]) -> str:
    """One regex alternation of each pack's part (a pattern that never matches if none)."""
    return "|".join(part for part in parts if part) or r"(?!x)x"


def _union(sets: list[frozenset[str]]) -> frozenset[str]:
    return frozenset().union(*sets)


def _word_rx(field: str) -> str:
    """Each pack's alternation `field` as whole words."""
    return r"\b(?:" + _either([getattr(p, field) for p in PACKS.values()]) + r")\b"


# Words without which a pattern below cannot match: a set lookup spares the regex on most
# clauses (extraction runs on every turn). Each pack's words, in every language.
REQUEST_WORDS = _union([p.request_words for p in PACKS.values()])
HYPOTHETICAL_WORDS = _union([p.hypothetical_words for p in PACKS.values()])
FICTION_WORDS = _union([p.fiction_words for p in PACKS.values()])
REPORTED_WORDS = _union([p.reported_words for p in PACKS.values()])
JOINERS = _union([p.clause_joiners for p in PACKS.values()])
"""What joins two clauses, in every language (each pack's `clause_joiners`)."""

SUBJECT = "(?:" + "|".join(p.subjects for p in PACKS.values() if p.subjects) + ")"
"""The user as subject or owner, in every language: the one subject lexicon."""
# Spanish and Portuguese drop the subject, so a new clause may start with its verb ("y soy de
# Valparaíso", "mas moro em São Paulo"): first-person forms of the verbs facts are stated
# with. (German "und wohne in Hamburg" shares the subject before it, which its rules read.)
FIRST_PERSON_VERB = (
    "(?:"
    + "|".join(p.first_person_verbs for p in PACKS.values() if p.first_person_verbs)
    + ")"
)

NOW = "(?:" + "|".join(p.now for p in PACKS.values() if p.now) + ")"
""""now", "these days", in every language: what the user says after giving a value up."""
FIRST_PERSON_ENDING = (
    r"[^\W\d_]+(?:"
    + ("|".join(e for p in PACKS.values() for e in p.first_person_endings) or r"(?!x)x")
    + r")"
)
"""A word ending like a first-person present, in the languages that drop the subject."""
INVERTED_SUBJECT = (
    "(?:"
    + (
        "|".join(p.inverted_subjects for p in PACKS.values() if p.inverted_subjects)
        or r"(?!x)x"
    )
    + ")"
)
"""The subject after its verb, in the languages that put it there ("jetzt bin ich")."""


# The user as the one a question is about (retrieval/coincidence.py); "me" is left out
# ("write me a haiku" is a task).
ABOUT_USER = r"\b" + SUBJECT + r"\b"

# -- what ends or empties an object (extraction/objects.py) ---------------------------
# An object made only of a pronoun (or a pronoun and an intensifier) says nothing by itself.
PRONOUNS = _union([p.pronouns for p in PACKS.values()])

INTENSIFIERS = _union([p.intensifiers for p in PACKS.values()])

TIME_ENDS = _union([p.time_ends for p in PACKS.values()])

TRAILING = sorted(
    {phrase for p in PACKS.values() for phrase in p.trailing}, key=len, reverse=True
)
"""What closes an object and adds nothing, in every language (each pack's `trailing`)."""
TRAILING_ENDS = frozenset(phrase.split()[-1] for phrase in TRAILING)

END_WORDS = _union([p.end_words for p in PACKS.values()])


# -- extract.py ----------------------------------------------------------------------
# What may open a sentence before a fact's object ("please", "always"): an object after
# nothing else opens its sentence, so its capital is no name's.
SENTENCE_START = (
    r"[\W]*(?:(?:" + _either([p.sentence_openers for p in PACKS.values()]) + r")[\W]*)*"
)


# -- choice domains (extraction/slots.py) ---------------------------------------------
# Mutually exclusive choices: a newer exclusive fact in the same domain supersedes the older.
CHOICE_DOMAINS: dict[str, tuple[str, ...]] = {
    "indentation": (
        "tabs",
        "tab",
        "spaces",
        "space indentation",
        "2 spaces",
        "4 spaces",
        "two spaces",
        "four spaces",
    ),
    "editor": (
        "vim",
        "neovim",
        "nvim",
        "emacs",
        "vscode",
        "vs code",
        "visual studio code",
        "sublime",
        "nano",
        "intellij",
        "pycharm",
        "zed",
        "helix",
        "cursor",
    ),
    "shell": ("bash", "zsh", "fish", "powershell"),
    "os": ("linux", "macos", "mac", "windows", "ubuntu", "debian", "arch", "fedora"),
    "language": (
        "python",
        "rust",
        "go",
        "golang",
        "java",
        "javascript",
        "typescript",
        "ruby",
        "kotlin",
        "swift",
        "php",
        "haskell",
        "elixir",
        "scala",
        "c++",
        "c#",
        "zig",
    ),
    "database": (
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
        "mongodb",
        "mongo",
        "redis",
        "mariadb",
        "dynamodb",
        "cassandra",
        "duckdb",
    ),
    "theme": ("dark mode", "light mode", "dark theme", "light theme"),
    "quotes": ("single quotes", "double quotes"),
    "package_manager": (
        "npm",
        "yarn",
        "pnpm",
        "pip",
        "poetry",
        "uv",
        "conda",
        "pipenv",
    ),
    "cloud": ("aws", "gcp", "azure", "google cloud"),
    "frontend": ("react", "vue", "svelte", "angular", "solid"),
    "units": ("metric", "imperial", "celsius", "fahrenheit"),
    "formatter": ("black", "ruff", "prettier", "yapf", "autopep8"),
}


# -- clauses.py ----------------------------------------------------------------------
SPEAKER_I = r"\b(?:" + _either([p.speaker for p in PACKS.values()]) + r")\s*$"
"""The user's "I" ending what comes before a report ("I said", "je dis")."""

# What opens a question after a statement in the same sentence ("j'habite à Lyon, tu connais
# un bon bouchon ?"): the statement before it stays a statement.
QUESTION_TAIL = "(?:" + _either([p.question_tail for p in PACKS.values()]) + r")\b"

QUESTION_START = _either(
    ["(?:" + p.question_start + ")" for p in PACKS.values() if p.question_start]
)

HYPOTHETICAL = (
    r"^(?:\W*(?:"
    + _either([p.hypothetical_leads for p in PACKS.values()])
    + r")[,\s]+)*(?:"
    + _either([p.hypothetical for p in PACKS.values()])
    + r")\b"
)

CONDITIONAL = _either(
    ["(?:" + p.conditional + ")" for p in PACKS.values() if p.conditional]
)

FICTION = r"\b(?:" + _either([p.fiction for p in PACKS.values()]) + r")\b"

REPORTED = r"\b(?:" + _either([p.reported for p in PACKS.values()]) + r")\b"

REQUEST_PREFIX = (
    r"^(?:(?:" + _either([p.request_prefix for p in PACKS.values()]) + r")[,:\s]+)*"
)

REQUEST = (
    REQUEST_PREFIX + r"(?:" + _either([p.request for p in PACKS.values()]) + r")\b"
)

REQUEST_INSIDE = r"\b(?:" + _either([p.request_inside for p in PACKS.values()]) + ")"

POINTS_AT_MATERIAL = (
    r"(?::\s*$|:\s+\S|\b(?:" + _either([p.material for p in PACKS.values()]) + r")\b)"
)

REQUEST_STANDING = _word_rx("request_standing")

CREATIVE = _word_rx("creative")


# -- self_statement.py ---------------------------------------------------------------
FILLER = (
    r"(?:(?:"
    + "|".join(sorted({w for p in PACKS.values() for w in p.fillers}))
    + r")\b[\W_]*)"
)
"""Words that open a clause and say nothing, in every language (each pack's `fillers`)."""

# How often: a routine said with its frequency first ("Todas las mañanas salgo a correr").
FREQUENCY = "(?:" + _either([p.frequency for p in PACKS.values()]) + ")"

SELF_SUBJECT = "(?:" + _either([p.self_subjects for p in PACKS.values()]) + ")"

# Spanish and Portuguese say the verb without its subject; casual French says "on" for "we";
# casual German drops "ich" ("Wohne seit 2020 in Graz") or puts it after the verb ("Jeden
# Samstag geh ich auf den Markt").
SELF_VERB = "(?:" + _either([p.self_verbs for p in PACKS.values()]) + ")"
"""The verb of a statement about the user said without its subject, in every language."""

# "My wife and I", "Meine Frau und ich": the user among the subject.
PARTNER = (
    r"(?:(?:"
    + _either([p.possessives for p in PACKS.values()])
    + r"|[A-Z]\w+)\s+(?:[\w-]+\s+)?(?:"
    + "|".join(sorted({w for p in PACKS.values() for w in p.joiners}))
    + r")\s+(?=(?:"
    + _either([p.i_after_and for p in PACKS.values()])
    + r")\b))?"
)


# Addressing the assistant, pointing at the conversation, quoting, or the words of a task
# in progress (debugging, asking, thinking aloud, time-bound plans).
NOT_ABOUT_USER = (
    r"[\"“”«»„]|\b(?:" + _either([p.not_about_user for p in PACKS.values()]) + r")\b"
)

# What the user is doing or where they are right now is the task, not who they are ("I'm
# writing a cover letter for Google", "I'm at the airport in Denver"), except what is a plan.
DOING_NOW = (
    r"^(?:" + _either([p.busy for p in PACKS.values()]) + r")\s+"
    r"(?:just\s+|currently\s+|still\s+)?"
    r"(?!(?:learning|studying|training|saving|planning|moving|relocating|expecting|raising|"
    r"retiring)\b)(?:\w+(?:ing|ndo)\b|at\b|in\b|on\b|with\b|off\b|away\b|out\b|back\b|"
    r"home\b|done\b|busy\b|\d)"
)

SELF_NEGATION = (
    r"\b(?:"
    + "|".join(
        part for p in PACKS.values() for part in (p.negations, p.aversions) if part
    )
    + r")\b"
)
"""A negation or an aversion, in every language: the self-statement is negative."""
NEGATION = (
    r"(?:"
    + "|".join(
        [p.negations for p in PACKS.values() if p.negations]
        + sorted({w for p in PACKS.values() for w in p.negators})
    )
    + r")\b"
)
"""How a negated object opens, in every language (`conflict` reads stored claims with it)."""

# What comes after "so", "but", "because"… is a consequence or a contrast, often about the
# task ("I'm originally from Kerala, so this monsoon stuff is nostalgic"): the statement is
# what comes before it.
CONSEQUENCE = (
    r",?\s+(?:"
    + _either([p.consequences for p in PACKS.values()])
    + r")\s+|\s+[—–]\s+"
    # an order after the statement: "I was born in Lagos, write me a poem"
    + r"|,\s+(?=(?:"
    + _either([p.order_verbs for p in PACKS.values()])
    + r")\b)"
)

# Families by the words that name them (each pack's `family_words`), the most telling first: a
# routine is a habit whatever it is about, a diet is a constraint wherever it is said.
FAMILIES = (
    "habit",
    "constraint",
    "family",
    "work",
    "location",
    "identity",
    "instruction",
    "goal",
    "stack",
    "decision",
    "preference",
    "event",
)
FAMILY_WORDS = {
    family: _either([p.family_words.get(family, "") for p in PACKS.values()])
    for family in FAMILIES
}

# -- standing instructions said without a subject ----------------------------------------
# "Metric units always, please", "Nada de recomendarme series de miedo, por favor", "Du
# kannst mich ruhig duzen": how every answer should be, said as an order or a permission.
ANSWER_WORDS = _word_rx("answer_words")

SELF_STANDING = _word_rx("order_standing")

# "No emojis please", "Nada de…", "Keine Anglizismen bitte": a ban on every answer.
_BANS = _either([p.bans for p in PACKS.values()])
OPENS_AS_ORDER = (
    r"^[\W_]*(?:(?:"
    + _either([p.please for p in PACKS.values()])
    + r")[,\s]+)?(?:"
    + _BANS
    + r")\b"
)

# An order about this conversation's text, not about every answer.
ABOUT_THIS = _word_rx("about_this")

ORDER_NEGATION = (
    r"^[\W_]*(?:"
    + _BANS
    + r")\b|\b(?:"
    + _either([p.order_negations for p in PACKS.values()])
    + r")\b"
)


# -- objects.py ----------------------------------------------------------------------
# Where the object of a fact ends: the rest is reasoning or another clause, not the fact.
CLAUSE_END = (
    r"\s*(?:;|:|\(|\s-\s|\s–\s|\s—\s|\b(?:"
    + _either([p.clause_ends for p in PACKS.values()])
    + r")\b)"
)
NAME_STOP = r"\s+(?:" + _either([p.name_ends for p in PACKS.values()]) + r")\b|[,;.!(]"
"""Where a name ends, in every language ("Me llamo Ana y …", "Ich heiße Jan aus Köln")."""
AND = (
    r"\b(?:" + "|".join(sorted({w for p in PACKS.values() for w in p.joiners})) + r")\b"
)
""""and" in every language (each pack's `joiners`)."""
SCOPE = (
    r"\s(?:" + _either([p.scope_words for p in PACKS.values()]) + r")\s+(?P<scope>.+)$"
)
"""The scope of a choice: what follows its qualifier ("tabs over spaces for YAML")."""
UNIVERSAL_SCOPE = (
    r"^(?:" + _either([p.universal_scopes for p in PACKS.values()]) + r")[\s.!?]*$"
)
"""A scope that leaves nothing out ("everything", "alles", "todo"): no scope at all."""
PASSING = _union([p.passing for p in PACKS.values()])
"""How the user is right now, not who they are ("I'm busy", "je suis chez …")."""
EMPTY_WORDS = _union([p.empty_words for p in PACKS.values()])
I_AM = r"^(?:" + _either([p.i_am for p in PACKS.values()]) + r")\s+(?P<next>\S+)"

# What opens a new thought after a comma inside an object: the object ends before it.
COMMA_STOP = r"^\s*(?:" + _either([p.comma_stops for p in PACKS.values()]) + r")\b"

SECOND_PERSON = _word_rx("second_person")

# A deictic object ("this bug", "that file") is about the conversation, not a durable fact.
DEICTIC = (
    r"^(?:(?:"
    + _either([p.deictic_preps for p in PACKS.values()])
    + r")\s+)?(?:"
    + _either([p.deictic_objects for p in PACKS.values()])
    + r")\b"
)

TIME = r"\s+(?:" + _either([p.time_phrases for p in PACKS.values()]) + r")\s*$"

THIRD_EN = PACKS["en"].third_person
"""English's own: `objects.third_person` reads its contractions apart."""

THIRD_OTHER = {
    first: third
    for p in PACKS.values()
    if p.code != "en"
    for first, third in p.third_person.items()
}
"""The other languages' possessives, first person -> third ("mi" -> "su")."""


# -- speech.py -----------------------------------------------------------------------
MAIL_HEADER = r"^\s*(?:" + _either([p.mail_headers for p in PACKS.values()]) + r"):\s"
REPLY = r"^\s*(?:" + _either([p.reply_lines for p in PACKS.values()]) + ")"

GREETING = (
    r"^\s*(?:" + _either([p.greetings for p in PACKS.values()]) + r")\b[^\n]{0,60},\s*$"
)

SIGNOFF = (
    r"^\s*(?:" + _either([p.signoffs for p in PACKS.values()]) + r")\b[^\n]{0,30}$"
)

LABELS = _union([p.labels for p in PACKS.values()])

PAYLOAD_INTRO = (
    r"\b(?:"
    + _either([p.payload_words for p in PACKS.values()])
    + r")\b[^\n]{0,40}:\s*$"
)

# A line that opens like a manuscript: a chapter or a scene heading, a fairy tale.
MANUSCRIPT = (
    r"^[ \t]*(?:(?:"
    + _either([p.chapters for p in PACKS.values()])
    + r")\s+(?:\d+|[IVXLC]+|"
    + _either([p.chapter_numbers for p in PACKS.values()])
    + r")[ \t]*(?:[.:\n]|$)|(?:"
    + _either([p.book_parts for p in PACKS.values()])
    + r")[ \t]*(?:[.:\n]|$)|"
    + _either([p.tale_openings for p in PACKS.values()])
    + r")"
)
