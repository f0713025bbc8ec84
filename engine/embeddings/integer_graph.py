"""An ONNX model's matrix multiplications in 8-bit integers, built from the model at load.

Why: the packaged MiniLM stores its weights as int8 but its graph turns them back into
float32 and multiplies in float32; those matmuls are ~75 % of a run and already at this
kind of core's float32 peak. Dynamic quantisation (signed 7-bit weights per output channel,
activations quantised per run) runs them as integer matmuls: measured on one core of the
2-core EPYC box (AVX-512 VNNI), 8 / 16 / 32 tokens in 0.69-0.73 / 1.1-1.3 / 2.1-2.3 ms
instead of 2.7 / 3.9 / 6.1 ms for the float graph and 0.95-1.0 / 1.6-1.8 / 3.1-3.6 ms with
the unsigned weights of build 1 (docs/performance.md). Its vectors are close to the float
graph's but not the same, so the graph is part of the embedding signature (`MODEL_SUFFIX`,
which names the build): switching, or a new build, re-embeds.

How: onnxruntime folds the model's constant dequantisation into float weights (basic graph
optimisation, saved to a file), then `onnxruntime.quantization.quantize_dynamic` (it needs
the `onnx` package) rewrites the float MatMuls. That runs in a child process: its peak
(~430 MB RSS) never becomes the proxy's, and a stopping proxy kills it instead of waiting.
Building takes a few seconds and ~60 MB of disk, so the result is kept in a cache folder
and reused while the source model and the versions that built it are the same
(`cache_key`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from memtap.engine.embeddings.kept_builds import tidy

log = logging.getLogger("memtap.embeddings")

MODEL_SUFFIX = "+int8-matmul-v2"
"""Appended to the model name (and so to the signature) when this graph is used."""
BUILD_VERSION = 2
"""Bump when the build below produces another graph: the cache key and files change."""
CACHE_ENV = "MEMTAP_ONNX_GRAPH_CACHE"
"""Folder that overrides where built graphs are kept (several data dirs may share one)."""
BUILD_TIMEOUT_S = 180.0
"""A build takes ~4-7 s on a loaded 2-core box; past this something is wrong."""
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


def graph_file(folder: Path, model_path: Path, key: str) -> Path:
    return folder / f"{model_path.stem}{_FILE_TAG}{key}.onnx"


async def integer_graph(model_path: Path, cache_dir: Path | None) -> Path | bytes:
    """The integer-matmul graph of `model_path`: a cached file, or bytes when there is no
    cache folder (or it cannot be created). Raises when the build is impossible (no `onnx`
    package, a graph the quantiser cannot read, a full disk, a build past the timeout)."""
    key = await asyncio.to_thread(cache_key, model_path)
    folder = cache_folder(cache_dir)
    if folder is None:
        return await _build_bytes(model_path)
    target = graph_file(folder, model_path, key)
    if target.is_file():
        await asyncio.to_thread(_tidy, folder, model_path.stem, target)
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=_WORK_PREFIX, dir=folder))
    except OSError as exc:
        # A folder memtap may not create costs the build at every start, not the graph.
        log.warning(
            "embeddings.integer_graph_not_cached",
            extra={"fields": {"folder": str(folder), "error": str(exc)}},
        )
        return await _build_bytes(model_path)
    try:
        built = work / "graph.onnx"
        await _build(model_path, built)
        await asyncio.to_thread(_settle, built, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    await asyncio.to_thread(_tidy, folder, model_path.stem, target)
    log.info(
        "embeddings.integer_graph_built",
        extra={"fields": {"path": str(target), "bytes": target.stat().st_size}},
    )
    return target


def _tidy(folder: Path, stem: str, keep: Path) -> None:
    tidy(
        folder,
        keep,
        files=f"{stem}{_FILE_TAG}",
        work=_WORK_PREFIX,
        work_timeout_s=BUILD_TIMEOUT_S,
    )


def discard(graph: Path) -> None:
    """A cached graph that would not load (cut short by a power loss): the next call of
    `integer_graph` builds it again."""
    graph.unlink(missing_ok=True)


async def _build_bytes(model_path: Path) -> bytes:
    with tempfile.TemporaryDirectory(prefix=_WORK_PREFIX) as work:
        built = Path(work) / "graph.onnx"
        await _build(model_path, built)
        return await asyncio.to_thread(built.read_bytes)


async def _build(model_path: Path, out: Path) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        _MODULE,
        str(model_path),
        str(out),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(BUILD_TIMEOUT_S):
            _, stderr = await child.communicate()
    except TimeoutError:
        raise TimeoutError(
            f"integer graph build took longer than {BUILD_TIMEOUT_S:g} s"
        ) from None
    finally:
        # Timed out, or memtap stopping while it builds: the child goes with the wait.
        if child.returncode is None:
            child.kill()
            await child.wait()
    if child.returncode != 0 or not out.is_file():
        raise RuntimeError(_failure(child.returncode, stderr))


def _failure(code: int | None, stderr: bytes) -> str:
    if code is not None and code < 0:
        how = f"killed by {signal.Signals(-code).name}"
    else:
        how = f"exited {code}"
    lines = stderr.decode(errors="replace").strip().splitlines()
    return f"integer graph build {how}: " + (" | ".join(lines[-3:]) or "no output")


def _settle(built: Path, target: Path) -> None:
    # On disk before it gets its name: a power cut leaves no short file under it.
    with built.open("rb") as f:
        os.fsync(f.fileno())
    os.replace(built, target)


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
        # Signed weights per output channel: unsigned activations times signed weights is
        # the product VNNI multiplies natively, 1.4-1.6x faster a run than build 1's
        # unsigned weights on a VNNI core; 7-bit weights (reduce_range) so that cores
        # without VNNI (AVX2's 16-bit pair sums) cannot saturate. Recall on the 65-question
        # set: 0.923 like build 1's (the float graph 0.938); signed per-tensor weights lost
        # one question more (docs/performance.md, "Signed 7-bit weights").
        quantize_dynamic(
            folded,
            out,
            op_types_to_quantize=["MatMul"],
            per_channel=True,
            reduce_range=True,
            weight_type=QuantType.QInt8,
        )
    finally:
        folded.unlink(missing_ok=True)


if __name__ == "__main__":
    build_here(Path(sys.argv[1]), Path(sys.argv[2]))
