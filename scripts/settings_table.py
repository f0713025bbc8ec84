"""Rewrite the runtime settings table of docs/configuration.md from the declarations in
config/schema.py (`python scripts/settings_table.py`; `--check` only says whether it is
current). tests/contract/test_docs_reference.py fails while the page and the code differ."""

from __future__ import annotations

import sys
from pathlib import Path

from memtap.config.settings import TABLE_END, TABLE_START, settings_table

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    updated = text[:start] + settings_table() + text[end:]
    if "--check" in argv:
        current = updated == text
        print("current" if current else f"{PAGE} differs from config/schema.py")
        return 0 if current else 1
    PAGE.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
