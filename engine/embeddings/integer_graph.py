"""An ONNX model's matrix multiplications in 8-bit integers, built from the model at load.

Why: the packaged MiniLM stores its weights as int8 but its graph turns them back into
float32 and multiplies in float32; those matmuls are ~75 % of a run and already at this
kind of core's float32 peak. Dynamic quantisation (weights as uint8 per output channel,
activations quantised per run) runs them as integer matmuls: measured on one core of the
2-core EPYC box, 8 / 16 / 32 tokens in 3.6 / 6.1 / 11.1 ms of CPU instead of 6.8 / 9.1 /
14.4 ms (docs/performance.md). Its vectors are close to the float graph's but not the same,
so the graph is part of the embedding signature (`MODEL_SUFFIX`): switching re-embeds.

How: onnxruntime folds the model's constant dequantisation into float weights (basic graph
optimisation, saved to a file), then `onnxruntime.quantization.quantize_dynamic` (it needs
the `onnx` package) rewrites the float MatMuls, in a child process. Building takes a few
seconds and ~60 MB of disk, so the result is kept in a cache folder and reused while the
source model and the versions that built it are the same (`cache_key`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

log = logging.getLogger("memtap.embeddings")

MODEL_SUFFIX = "+int8-matmul"
"""Appended to the model name (and so to the signature) when this graph is used."""
BUILD_VERSION = 1
"""Bump when the build below produces another graph: the cache key and files change."""
CACHE_ENV = "MEMTAP_ONNX_GRAPH_CACHE"
"""Folder that overrides where built graphs are kept (several data dirs may share one)."""
BUILD_TIMEOUT_S = 600
_FILE_TAG = ".int8-matmul."
_WORK_PREFIX = "building-"
_MODULE = "memtap.engine.embeddings.integer_graph"


def cache_key(model_path: Path) -> str:
    """What the built graph depends on: the model's bytes, the build, the tools' versions."""
    import onnx
    import onnxruntime

    digest = hashlib.sha256()
    with model_path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    digest.update(
        f"|{BUILD_VERSION}|{onnxruntime.__version__}|{onnx.__version__}".encode()
    )
    return digest.hexdigest()[:16]


def cache_folder(default: Path | None) -> Path | None:
    override = os.environ.get(CACHE_ENV, "").strip()
    return Path(override) if override else default


def integer_graph(model_path: Path, cache_dir: Path | None) -> Path | bytes:
    """The integer-matmul graph of `model_path`: a cached file, or bytes when there is no
    cache folder (or it cannot be written). Raises when the build is impossible (no `onnx`
    package, a graph the quantiser cannot read)."""
    key = cache_key(model_path)
    folder = cache_folder(cache_dir)
    if folder is None:
        return _build_bytes(model_path)
    target = folder / f"{model_path.stem}{_FILE_TAG}{key}.onnx"
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(folder)
        with tempfile.TemporaryDirectory(prefix=_WORK_PREFIX, dir=folder) as work:
            built = Path(work) / "graph.onnx"
            _build(model_path, built)
            os.replace(built, target)
    except OSError as exc:
        # A read-only or full disk costs the build at every start, not the faster graph.
        log.warning(
            "embeddings.integer_graph_not_cached",
            extra={"fields": {"folder": str(folder), "error": str(exc)}},
        )
        return _build_bytes(model_path)
    _remove_stale(folder, model_path.stem, keep=target)
    log.info(
        "embeddings.integer_graph_built",
        extra={"fields": {"path": str(target), "bytes": target.stat().st_size}},
    )
    return target


def _build_bytes(model_path: Path) -> bytes:
    with tempfile.TemporaryDirectory() as work:
        built = Path(work) / "graph.onnx"
        _build(model_path, built)
        return built.read_bytes()


def _build(model_path: Path, out: Path) -> None:
    """In a child process: the build's peak (~430 MB RSS: the folded float graph and the
    quantiser's copies of it) never becomes the proxy's, which stays at ~150-190 MB."""
    done = subprocess.run(
        [sys.executable, "-m", _MODULE, str(model_path), str(out)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0 or not out.is_file():
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise RuntimeError(f"integer graph build exited {done.returncode}: {tail}")


def build_here(model_path: Path, out: Path) -> None:
    """The build itself (what the child process runs)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = out.with_name("folded.onnx")
    options = ort.SessionOptions()
    # Basic level only: constant folding (int8 weights -> float initialisers the quantiser
    # can read), no fusions into contrib ops it would not recognise.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    try:
        ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        # uint8 weights per output channel: on the recall set as good as the float graph
        # (signed per-tensor weights lost 2 of 65 questions), at the same speed.
        quantize_dynamic(
            folded,
            out,
            op_types_to_quantize=["MatMul"],
            per_channel=True,
            weight_type=QuantType.QUInt8,
        )
    finally:
        folded.unlink(missing_ok=True)


def _remove_stale(folder: Path, stem: str, keep: Path) -> None:
    """Graphs built from an older model or older tools: nothing will read them again."""
    for path in folder.glob(f"{stem}{_FILE_TAG}*.onnx"):
        if path != keep:
            path.unlink(missing_ok=True)


def _remove_abandoned(folder: Path) -> None:
    """Work folders of builds killed midway (~150 MB each): older than any build may run,
    so no running build owns them."""
    cutoff = time.time() - BUILD_TIMEOUT_S
    for work in folder.glob(f"{_WORK_PREFIX}*"):
        try:
            if work.is_dir() and work.stat().st_mtime < cutoff:
                shutil.rmtree(work, ignore_errors=True)
        except OSError:
            continue


if __name__ == "__main__":
    build_here(Path(sys.argv[1]), Path(sys.argv[2]))
