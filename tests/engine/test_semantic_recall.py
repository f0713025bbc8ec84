"""The recall set through the real store, reindex and retrieval (scripts/eval_recall.py) with
the packaged ONNX model: the issue's quality targets for hybrid retrieval."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from memtap.config.schema import EmbeddingConfig

ROOT = Path(__file__).resolve().parents[2]


def load_eval() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "eval_recall", ROOT / "scripts" / "eval_recall.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_recall"] = module
    spec.loader.exec_module(module)
    return module


def test_recall_set_is_well_formed() -> None:
    data = json.loads((ROOT / "tests" / "datasets" / "recall_set.json").read_text())
    assert len(data["owners"]) >= 4
    for spec in data["owners"].values():
        ids = {m["id"] for m in spec["memories"]}
        kinds = {q["kind"] for q in spec["queries"]}
        assert kinds == {"lexical", "paraphrase", "temporal", "unrelated"}
        for q in spec["queries"]:
            assert q["expect"] is None or q["expect"] in ids
            assert q.get("older") is None or q["older"] in ids


async def test_hybrid_meets_the_targets_with_onnx(tmp_path: Path) -> None:
    module = load_eval()
    data = json.loads(module.DEFAULT_SET.read_text())
    # 0.30: the cosine floor the recall set supports for all-MiniLM-L6-v2 (docs/readme/semantic.md).
    # The model's quality, not the machine's load: the queries are embedded by the model
    # (never projected because it is busy) and get a limit a loaded CI box cannot reach
    # (at the default 250 ms the vector arm was cut there once: paraphrase 0.79).
    result = await module.evaluate(
        data,
        EmbeddingConfig(source="onnx", query_projection="off"),
        tmp_path,
        min_similarity=0.3,
        retrieval_timeout_ms=5000,
    )
    hybrid, keyword = result["hybrid"], result["keyword"]
    assert hybrid["recall@5"] >= 0.95, hybrid
    assert hybrid["by_kind"]["paraphrase"] >= 0.90, hybrid
    assert hybrid["newer_first"] >= 0.90, hybrid
    assert result["semantic"]["unrelated_empty"] == 1.0, result["semantic"]
    assert keyword["by_kind"]["paraphrase"] < 0.2  # what the semantic tier is for
