"""Integrity of the multilingual long-conversation set (tests/datasets/locomo_multilingual/),
the data `scripts/eval_locomo.py --dataset tests/datasets/locomo_multilingual` replays: each
conversation loads as the script reads it, one speaker writes in its language and the other in
English, every question is in English with its evidence present, and every answer but a date
is in its evidence as the scorer reads it. Not the scores: those are a benchmark."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "tests" / "datasets" / "locomo_multilingual"


def _script() -> ModuleType:
    if str(ROOT / "scripts") not in sys.path:
        sys.path.append(
            str(ROOT / "scripts")
        )  # it imports its sibling eval_conversations
    spec = importlib.util.spec_from_file_location(
        "eval_locomo", ROOT / "scripts" / "eval_locomo.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("eval_locomo", module)
    spec.loader.exec_module(module)
    return module


E = _script()
FILES = sorted(FOLDER.glob("*.json"))


def test_four_languages_with_an_english_partner() -> None:
    assert [f.stem for f in FILES] == ["de", "es", "fr", "pt"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_conversation_loads_and_every_answer_is_in_its_evidence(path: Path) -> None:
    from memtap.engine.languages.detect import language_of

    dialogue = E.load(path)
    assert len(dialogue.turns) >= 100 and len(dialogue.questions) >= 25
    said = {t.id: t for t in dialogue.turns}
    native, partner = dialogue.speakers
    native_text = " ".join(t.text for t in dialogue.turns if t.speaker == native)
    assert language_of(native_text) == path.stem
    assert (
        language_of(" ".join(t.text for t in dialogue.turns if t.speaker == partner))
        == "en"
    )
    for asked in dialogue.questions:
        assert asked.evidence and all(e in said for e in asked.evidence), asked.question
        if E.CATEGORIES[asked.category] == "temporal":
            continue
        evidence = " ".join(said[e].text for e in asked.evidence)
        assert E.found(asked.answer, evidence), asked.question


def test_the_script_names_the_categories_below_bm25() -> None:
    """The "no category below BM25 at memtap's budget" target, as the table prints it."""
    figures = {
        "memtap": {"by_category": {"open-domain": 0.238, "single-hop": 0.9}},
        "bm25_at_memtap_budget_1165": {
            "by_category": {"open-domain": 0.333, "single-hop": 0.8}
        },
    }
    assert E.below_bm25(figures) == [("open-domain", 0.238, 0.333)]
    figures["memtap"]["by_category"]["open-domain"] = 0.4
    assert E.below_bm25(figures) == []
