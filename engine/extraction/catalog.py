"""Every fact rule, in the order extraction tries them, and their trigger index.

Every language pack (`engine/languages/registry.py`) brings phrases that the shapes
(`shapes.py`) turn into rules, in the registry's order, then the named relatives of every
pack (`languages/named_relatives.py`).
Adding a language is adding a pack to the registry, or `register(pack)` at run time.
"""

from __future__ import annotations

from memtap.engine.extraction.languages import named_relatives
from memtap.engine.extraction.rules import Rule, RuleIndex
from memtap.engine.extraction.shapes import rules_of
from memtap.engine.languages import registry
from memtap.engine.languages.pack import LanguagePack


def _all_rules() -> tuple[Rule, ...]:
    # The packs' phrases in the registry's order (English first: its constraints before its
    # choices, so "I don't eat pork" is a constraint before it could be read as a habit;
    # other languages after: their triggers rarely meet English text).
    packs = registry.PACKS.values()
    phrases = [rule for pack in packs for rule in rules_of(pack)]
    named = tuple(r for pack in packs for r in named_relatives.rules_of(pack))
    return (*phrases, *named)


ALL_RULES: tuple[Rule, ...] = _all_rules()
INDEX = RuleIndex(ALL_RULES)
LANGUAGES: tuple[str, ...] = tuple(registry.PACKS)
_version = 0


def version() -> int:
    """Changes when a pack is registered: what was built from the rules is built again."""
    return _version


def register(pack: LanguagePack) -> None:
    """Read `pack`'s language from now on (replacing a pack of the same code)."""
    registry.register(pack)
    _reload()


def unregister(code: str) -> None:
    registry.unregister(code)
    _reload()


def _reload() -> None:
    global ALL_RULES, LANGUAGES, _version
    ALL_RULES = _all_rules()
    INDEX.load(ALL_RULES)
    LANGUAGES = tuple(registry.PACKS)
    _version += 1
