"""The extraction patterns: three families (preference, decision, habit), each with a positive
and a negative form, so "I don't like X" is stored as a negative fact and never as "X".

Every pattern matches one sentence that already had memtap's own block and code removed. The
named group `obj` is what the fact is about; `verb` picks the wording of the stored content.
Negative patterns are tried first: "I never like X" must not fall through to a habit "X".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from memtap.engine.types import MemoryType

Category = Literal["preference", "decision", "habit"]
Polarity = Literal["positive", "negative"]

_ADV = r"(?:(?:really|truly|definitely|much|now|still|actually|generally|personally|also|just|strongly|do|would)\s+)*"
_I = r"(?:^|(?<=[\s,;:(\"']))I\s+"


@dataclass(frozen=True, slots=True)
class Pattern:
    category: Category
    polarity: Polarity
    type: MemoryType
    regex: re.Pattern[str]
    exclusive: bool
    """Facts about one thing that exclude each other (prefer, chose): a newer one supersedes
    an older one of the same domain ("tabs" vs "spaces")."""
    wording: dict[str, str]
    """lower-case verb as matched (whitespace collapsed) -> content prefix; "" key = default."""


def _p(
    category: Category,
    polarity: Polarity,
    type_: MemoryType,
    rx: str,
    exclusive: bool,
    wording: dict[str, str],
) -> Pattern:
    return Pattern(
        category, polarity, type_, re.compile(rx, re.IGNORECASE), exclusive, wording
    )


PATTERNS: tuple[Pattern, ...] = (
    # -- preferences, negative ---------------------------------------------------------
    _p(
        "preference",
        "negative",
        "factual",
        _I
        + _ADV
        + r"(?P<verb>don'?t|do\s+not|no\s+longer|never|doesn'?t)\s+"
        + _ADV
        + r"(?P<verb2>like|love|enjoy|prefer|want\s+to\s+use|care\s+for)\s+(?P<obj>.+)",
        False,
        {
            "like": "Does not like",
            "love": "Does not love",
            "enjoy": "Does not enjoy",
            "prefer": "Does not prefer",
            "want to use": "Does not want to use",
            "care for": "Does not care for",
            "": "Does not like",
        },
    ),
    _p(
        "preference",
        "negative",
        "factual",
        _I
        + _ADV
        + r"(?P<verb>hate|dislike|detest|despise|can'?t\s+stand|cannot\s+stand|avoid)\s+(?P<obj>.+)",
        False,
        {
            "hate": "Hates",
            "dislike": "Dislikes",
            "detest": "Detests",
            "despise": "Despises",
            "can't stand": "Cannot stand",
            "cant stand": "Cannot stand",
            "cannot stand": "Cannot stand",
            "avoid": "Avoids",
            "": "Dislikes",
        },
    ),
    _p(
        "preference",
        "negative",
        "factual",
        _I + _ADV + r"(?P<verb>prefer|would\s+rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        False,
        {
            "prefer": "Prefers not to",
            "would rather": "Would rather not",
            "": "Prefers not to",
        },
    ),
    _p(
        "preference",
        "negative",
        "factual",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'m|\s+am)\s+(?P<verb>not\s+(?:a\s+|really\s+a\s+|much\s+of\s+a\s+)?fan)\s+of\s+(?P<obj>.+)",
        False,
        {"": "Is not a fan of"},
    ),
    _p(
        "preference",
        "negative",
        "factual",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'d|\s+would)\s+(?P<verb>rather)\s+not\s+(?:to\s+)?(?P<obj>.+)",
        False,
        {"": "Would rather not"},
    ),
    # -- preferences, positive ---------------------------------------------------------
    _p(
        "preference",
        "positive",
        "factual",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'d|\s+would)\s+(?P<verb>rather)\s+(?:use\s+)?(?P<obj>.+)",
        True,
        {"": "Prefers"},
    ),
    _p(
        "preference",
        "positive",
        "factual",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'m|\s+am)\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?(?P<verb>fan)\s+of\s+(?P<obj>.+)",
        False,
        {"": "Is a fan of"},
    ),
    _p(
        "preference",
        "positive",
        "factual",
        _I + _ADV + r"(?P<verb>prefer)\s+(?P<obj>.+)",
        True,
        {"": "Prefers"},
    ),
    _p(
        "preference",
        "positive",
        "factual",
        r"\bmy\s+(?:(?:absolute|all-time)\s+)?(?P<verb>favou?rite)\s+(?P<what>[\w -]{1,40}?)\s+(?:is|are)\s+(?P<obj>.+)",
        True,
        {"": "Favourite"},
    ),
    _p(
        "preference",
        "positive",
        "factual",
        _I + _ADV + r"(?P<verb>like|love|enjoy|adore)\s+(?P<obj>.+)",
        False,
        {
            "like": "Likes",
            "love": "Loves",
            "enjoy": "Enjoys",
            "adore": "Adores",
            "": "Likes",
        },
    ),
    # -- decisions, negative -----------------------------------------------------------
    _p(
        "decision",
        "negative",
        "episodic",
        _I
        + _ADV
        + r"(?P<verb>won'?t|will\s+not|decided\s+not\s+to|decided\s+against|am\s+not\s+going\s+to|'m\s+not\s+going\s+to)\s+"
        + r"(?:use|using|adopt|adopting|go\s+with|going\s+with|pick|choose|switch\s+to|switching\s+to)\s+(?P<obj>.+)",
        False,
        {"": "Decided not to use"},
    ),
    _p(
        "decision",
        "negative",
        "episodic",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'m|\s+am)\s+not\s+going\s+to\s+(?:use|adopt|go\s+with|pick|choose|switch\s+to)\s+(?P<obj>.+)",
        False,
        {"": "Decided not to use"},
    ),
    # -- decisions, positive -----------------------------------------------------------
    _p(
        "decision",
        "positive",
        "episodic",
        _I
        + _ADV
        + r"(?P<verb>switched|moved|migrated|changed)\s+from\s+(?P<from>.+?)\s+to\s+(?P<obj>.+)",
        True,
        {
            "switched": "Switched",
            "moved": "Moved",
            "migrated": "Migrated",
            "changed": "Changed",
            "": "Switched",
        },
    ),
    _p(
        "decision",
        "positive",
        "episodic",
        r"(?:^|(?<=[\s,;:(\"']))I(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'ve\s+decided\s+to|\s+have\s+decided\s+to|\s+decided\s+to)\s+"
        + _ADV
        + r"(?P<verb>use|adopt|go\s+with|switch\s+to|pick|choose|stick\s+with|migrate\s+to|move\s+to)\s+(?P<obj>.+)",
        True,
        {
            "switch to": "Switched to",
            "migrate to": "Migrated to",
            "move to": "Moved to",
            "stick with": "Sticks with",
            "go with": "Decided to go with",
            "": "Decided to use",
        },
    ),
    _p(
        "decision",
        "positive",
        "episodic",
        _I
        + _ADV
        + r"(?P<verb>chose|picked|went\s+with|switched\s+to|selected|opted\s+for|settled\s+on|decided\s+on|"
        + r"migrated\s+to|moved\s+to|adopted)\s+(?P<obj>.+)",
        True,
        {
            "chose": "Chose",
            "picked": "Picked",
            "went with": "Went with",
            "switched to": "Switched to",
            "selected": "Selected",
            "opted for": "Opted for",
            "settled on": "Settled on",
            "decided on": "Decided on",
            "migrated to": "Migrated to",
            "moved to": "Moved to",
            "adopted": "Adopted",
            "": "Chose",
        },
    ),
    # -- habits, negative --------------------------------------------------------------
    _p(
        "habit",
        "negative",
        "factual",
        _I
        + r"(?P<verb>never|rarely|seldom|hardly\s+ever|don'?t\s+usually|do\s+not\s+usually|don'?t\s+ever|do\s+not\s+ever)\s+(?P<obj>.+)",
        False,
        {
            "never": "Never",
            "rarely": "Rarely",
            "seldom": "Seldom",
            "hardly ever": "Hardly ever",
            "": "Does not usually",
        },
    ),
    # -- habits, positive --------------------------------------------------------------
    _p(
        "habit",
        "positive",
        "factual",
        _I
        + r"(?P<verb>usually|always|often|typically|normally|generally|regularly|mostly|tend\s+to)\s+(?P<obj>.+)",
        True,
        {
            "usually": "Usually",
            "always": "Always",
            "often": "Often",
            "typically": "Typically",
            "normally": "Normally",
            "generally": "Generally",
            "regularly": "Regularly",
            "mostly": "Mostly",
            "tend to": "Tends to",
            "": "Usually",
        },
    ),
)

# Mutually exclusive choices: a newer exclusive fact in the same domain supersedes the older.
DOMAINS: dict[str, tuple[str, ...]] = {
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

# An object made only of these says nothing ("I like it").
EMPTY_OBJECTS = frozenset(
    {
        "it",
        "that",
        "this",
        "them",
        "those",
        "these",
        "one",
        "so",
        "to",
        "you",
        "him",
        "her",
        "the idea",
        "that idea",
        "it a lot",
        "that a lot",
        "this a lot",
    }
)

# Where the object of a fact ends: the rest is reasoning, not the fact.
CLAUSE_END = re.compile(
    r"\s*(?:,|;|:|\(|\s-\s|\s–\s|\bbecause\b|\bsince\b|\bas\s+it\b|\bas\s+they\b|\bbut\b|\bso\s+that\b|\bso\b|"
    r"\bwhich\b|\bwhen\b|\bwhenever\b|\bif\b|\bunless\b|\bthough\b|\balthough\b|\bexcept\b|\band\s+I\b)",
    re.IGNORECASE,
)
