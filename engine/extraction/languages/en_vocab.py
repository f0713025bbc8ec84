"""What the English rule modules still written as code share: the checks that read English
words (`engine/languages/en.py`) and the rule constructor."""

from __future__ import annotations

import re
from typing import Any

from memtap.engine.extraction.rules import Rule, rule
from memtap.engine.languages import en

LOOSE_VERBS = en.LOOSE_VERBS
_TECH = re.compile(en.TECH, re.IGNORECASE)
_TASK_VERBS = en.TASK_VERBS
_HORIZON = re.compile(en.HORIZON, re.IGNORECASE)


def not_task(match: re.Match[str], obj: str) -> bool:
    """Not a task for the assistant ("I want to read this file"); a goal with a horizon
    ("I want to read 50 books this year") is a plan even with a task verb."""
    horizon = _HORIZON.search(match.string) is not None
    obj_without_time = _HORIZON.sub("", obj)
    first = obj.split(maxsplit=1)[0].lower() if obj else ""
    return (horizon or first not in _TASK_VERBS) and not re.search(
        r"\b(?:this|that|it|these|those)\b", obj_without_time, re.IGNORECASE
    )


def is_technical(match: re.Match[str], obj: str) -> bool:
    return _TECH.search(obj) is not None


def en_rule(
    family: str,
    rx: str,
    template: object,
    triggers: str,
    polarity: str = "positive",
    **options: Any,
) -> Rule:
    return rule("en", family, rx, template, triggers, polarity, **options)  # type: ignore[arg-type]
