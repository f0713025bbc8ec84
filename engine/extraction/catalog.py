"""Every fact rule, in the order extraction tries them, and their trigger index."""

from __future__ import annotations

from memtap.engine.extraction.languages import (
    de,
    en,
    en_choices,
    es,
    fr,
    named_relatives,
    pt,
)
from memtap.engine.extraction.rules import Rule, RuleIndex

# English families before the seed's choices: "I don't eat pork" is a constraint before it
# could be read as a habit; other languages after (their triggers rarely meet English text).
ALL_RULES: tuple[Rule, ...] = (
    *en.RULES,
    *en_choices.RULES,
    *es.RULES,
    *pt.RULES,
    *fr.RULES,
    *de.RULES,
    *named_relatives.RULES,
)
INDEX = RuleIndex(ALL_RULES)
LANGUAGES: tuple[str, ...] = ("en", "es", "pt", "fr", "de")
