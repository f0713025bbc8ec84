"""English rules for the families beyond preference/decision/habit, in priority order: who the
user is (identity, location, work, family), what they need (constraints, instructions), what
they build and plan (stack, goals, events)."""

from __future__ import annotations

from memtap.engine.extraction.languages import en_people, en_plans
from memtap.engine.extraction.rules import Rule

RULES: tuple[Rule, ...] = (*en_people.RULES, *en_plans.RULES)
