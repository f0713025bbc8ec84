"""The language packs memtap reads, by code: English first, then the others in the order
their rules are tried. `register` adds one at run time (extraction's catalog re-reads it)."""

from __future__ import annotations

from memtap.engine.languages import de, en, es, fr, pt
from memtap.engine.languages.pack import LanguagePack

PACKS: dict[str, LanguagePack] = {
    pack.code: pack for pack in (en.PACK, es.PACK, pt.PACK, fr.PACK, de.PACK)
}


def register(pack: LanguagePack) -> None:
    """Add (or replace) the pack of `pack.code`."""
    PACKS[pack.code] = pack


def unregister(code: str) -> None:
    PACKS.pop(code, None)
