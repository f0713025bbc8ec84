"""Every fact rule, in the order extraction tries them, and their trigger index.

English is read by rule modules of its own (`languages/en*.py`); every other language is a
pack (`engine/languages/`) whose phrases the shapes (`shapes.py`) turn into rules. Adding a
language is adding a pack to `PACKS` (or `register(pack)` at run time)."""

from __future__ import annotations

from memtap.engine.extraction.languages import en, en_choices, named_relatives
from memtap.engine.extraction.rules import Rule, RuleIndex
from memtap.engine.extraction.shapes import rules_of
from memtap.engine.languages import de, es, fr, pt
from memtap.engine.languages.pack import LanguagePack

PACKS: list[LanguagePack] = [es.PACK, pt.PACK, fr.PACK, de.PACK]


def _all_rules() -> tuple[Rule, ...]:
    # English families before the seed's choices: "I don't eat pork" is a constraint before
    # it could be read as a habit; other languages after (their triggers rarely meet English
    # text).
    packed = tuple(r for pack in PACKS for r in rules_of(pack))
    return (*en.RULES, *en_choices.RULES, *packed, *named_relatives.RULES)


ALL_RULES: tuple[Rule, ...] = _all_rules()
INDEX = RuleIndex(ALL_RULES)
LANGUAGES: tuple[str, ...] = ("en", *(pack.code for pack in PACKS))
