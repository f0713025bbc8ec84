"""The English rules still written as code (`en_plans.py`); every other English fact is a
phrase of the English pack (`engine/languages/en.py`)."""

from __future__ import annotations

from memtap.engine.extraction.languages import en_plans
from memtap.engine.extraction.rules import Rule

RULES: tuple[Rule, ...] = en_plans.RULES
