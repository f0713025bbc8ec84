"""The English rules that are still modules, in priority order: who the user is (identity,
location, work, family) and what they build and plan (stack, goals, events). English
constraints, instructions, preferences, decisions and habits are phrases of the English pack
(`engine/languages/en.py`)."""

from __future__ import annotations

from memtap.engine.extraction.languages import en_people, en_plans
from memtap.engine.extraction.rules import Rule

RULES: tuple[Rule, ...] = (*en_people.RULES, *en_plans.RULES)
