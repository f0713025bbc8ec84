"""Fit the second model's cosine maps onto the local model's scale (a calibration, not a test).

memtap ranks a routed owner's windows by the better of two cosines: the local model's
(all-MiniLM-L6-v2) and USE-multilingual v3's mapped onto MiniLM's scale, so one floor and
one fusion serve both (`engine/embeddings/multilingual.py`). A map is `scale * cos + shift`
that gives USE-m3's cosines MiniLM's mean and spread over the same kind of pairs. No answer
is read: every question is paired with every turn of its conversation, each turn's text as
memtap embeds a window (no speaker name before it: a name the question holds would lift a
turn in another language by that name alone).

- same language: LoCoMo dev questions x their conversation's turns, both models. The map
  in use (`SCALE`, `SHIFT`) was fitted earlier over "Speaker: text" turns; over the text
  alone this gives 1.061 / 0.016, printed beside it (no set of ours asks in a routed
  language to choose between them);
- across languages (`ACROSS_SCALE`, `ACROSS_SHIFT`, fitted here): USE-m3 over our
  multilingual set's English questions x their conversation's turns in another language,
  matched to MiniLM's same-language mean and spread (what the snippets' floor was set on).

    .venv/bin/python scripts/fit_second_map.py
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtap.engine.embeddings.base import EmbeddingSource
from memtap.engine.embeddings.multilingual import (
    ACROSS_SCALE,
    ACROSS_SHIFT,
    SCALE,
    SHIFT,
    open_multilingual,
)
from memtap.engine.embeddings.onnx import open_onnx
from memtap.engine.languages.detect import other_language
from scripts.eval_locomo import DATASET, Dialogue, load

MULTILINGUAL = (
    Path(__file__).resolve().parents[1] / "tests" / "datasets" / "locomo_multilingual"
)


async def cosines(
    source: EmbeddingSource, dialogues: list[Dialogue], across: bool
) -> np.ndarray[Any, Any]:
    """Every question x turn of its conversation (`across`: the turns in another language
    only), as one array; embedded by `source` as memtap embeds them (unit vectors)."""
    found = []
    for dialogue in dialogues:
        turns = [t for t in dialogue.turns if not across or other_language(t.text)]
        texts = [t.text for t in turns]
        questions = [
            q.question
            for q in dialogue.questions
            if not across or not other_language(q.question)
        ]
        if texts and questions:  # a conversation with no turn in another language
            asked, said = await source.embed(questions), await source.embed(texts)
            found.append((asked @ said.T).ravel())
    if not found:
        raise SystemExit("no question x turn pairs to fit on")
    return np.concatenate(found)


def fitted(
    target: np.ndarray[Any, Any], source: np.ndarray[Any, Any]
) -> tuple[float, float]:
    scale = float(target.std() / source.std())
    return scale, float(target.mean() - scale * source.mean())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dataset", default=str(DATASET), help="same-language set (LoCoMo dev)"
    )
    parser.add_argument(
        "--multilingual", default=str(MULTILINGUAL), help="across-languages set"
    )
    args = parser.parse_args()
    first = await open_onnx(threads=1)
    second = open_multilingual("on")
    if second is None:
        raise SystemExit("the multilingual model's package is not installed")
    same = [load(p) for p in sorted(Path(args.dataset).glob("*.json"))]
    other = [load(p) for p in sorted(Path(args.multilingual).glob("*.json"))]
    target = await cosines(first, same, across=False)
    same_map = fitted(target, await cosines(second, same, across=False))
    across_map = fitted(target, await cosines(second, other, across=True))
    print(
        f"same language:    scale {same_map[0]:.4f} shift {same_map[1]:+.4f} "
        f"(in use {SCALE} {SHIFT:+})"
    )
    print(
        f"across languages: scale {across_map[0]:.4f} shift {across_map[1]:+.4f} "
        f"(in use {ACROSS_SCALE} {ACROSS_SHIFT:+})"
    )


if __name__ == "__main__":
    asyncio.run(main())
