"""The ONNX source with the real packaged all-MiniLM-L6-v2 (int8) and the shipped tokenizer."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from memtap.engine.embeddings import integer_graph
from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.integer_graph import CACHE_ENV, cache_key, graph_file
from memtap.engine.embeddings.onnx import OnnxEmbedder, open_onnx, packaged_model_path
from memtap.engine.embeddings.tokenizer import (
    PACKAGED_TOKENIZER,
    PACKAGED_TOKENIZER_SHA256,
    load_tokenizer,
)

PARAPHRASES = [
    ("I prefer Postgres for side projects", "which database do I like?"),
    ("I always use tabs for indentation", "what is my indentation style?"),
    ("My cat is named Biscuit", "what's my pet called?"),
    ("I commute to the office by bike", "how do I get to work?"),
]

module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def onnx() -> OnnxEmbedder:
    return await open_onnx()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def float_graph() -> OnnxEmbedder:
    return await open_onnx(integer_matmul=False)


def test_shipped_tokenizer_is_the_recorded_file() -> None:
    assert (
        hashlib.sha256(PACKAGED_TOKENIZER.read_bytes()).hexdigest()
        == PACKAGED_TOKENIZER_SHA256
    )
    readme = (PACKAGED_TOKENIZER.parent / "README.md").read_text()
    assert PACKAGED_TOKENIZER_SHA256 in readme
    assert "Apache License" in (PACKAGED_TOKENIZER.parent / "LICENSE").read_text()


def test_token_ids_are_berts_and_padding_is_off() -> None:
    tok = load_tokenizer()
    enc = tok.encode("Hello, world!")
    assert enc.ids == [101, 7592, 1010, 2088, 999, 102]
    long = tok.encode("word " * 400)
    assert len(long.ids) == 256  # truncation at 256, not the file's 128
    assert tok.padding is None


def test_vocab_txt_builds_the_same_tokenizer(tmp_path: Path) -> None:
    vocab = json.loads(PACKAGED_TOKENIZER.read_text())["model"]["vocab"]
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text(
        "\n".join(t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])) + "\n"
    )
    text = "Unaffable déjà-vu: I'd rather use PostgreSQL 16 in 2026!"
    assert (
        load_tokenizer(vocab_file).encode(text).ids == load_tokenizer().encode(text).ids
    )


@module_loop
async def test_model_outputs_unit_vectors(onnx: OnnxEmbedder) -> None:
    assert isinstance(onnx, EmbeddingSource)
    assert onnx.dim == 384
    assert onnx.signature == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
    vectors = await onnx.embed(
        ["one", "two words", "a much longer sentence about nothing"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (await onnx.embed([])).shape == (0, 384)


@module_loop
async def test_paraphrases_score_above_unrelated(onnx: OnnxEmbedder) -> None:
    texts = [t for pair in PARAPHRASES for t in pair]
    v = await onnx.embed(texts)
    for i in range(len(PARAPHRASES)):
        paraphrase = float(v[2 * i] @ v[2 * i + 1])
        for j in range(len(PARAPHRASES)):
            if j != i:
                unrelated = float(v[2 * i] @ v[2 * j + 1])
                assert paraphrase > unrelated + 0.1, (
                    PARAPHRASES[i],
                    PARAPHRASES[j],
                    paraphrase,
                    unrelated,
                )


@module_loop
async def test_batch_padding_does_not_change_a_vector(onnx: OnnxEmbedder) -> None:
    alone = await onnx.embed(["short text"])
    mixed = await onnx.embed(
        [
            "a considerably longer text that forces padding of the short one " * 3,
            "short text",
        ]
    )
    assert np.allclose(alone[0], mixed[1], atol=1e-4)


@module_loop
async def test_inference_runs_off_the_event_loop(
    onnx: OnnxEmbedder, blocking_guard
) -> None:  # type: ignore[no-untyped-def]
    with blocking_guard():
        vectors = await onnx.embed(["checked for blocking calls on the loop"] * 40)
    assert vectors.shape == (40, 384)


@module_loop
async def test_missing_model_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError) as info:
        await open_onnx(str(tmp_path / "nope.onnx"))
    assert info.value.cause == "onnx_not_found"
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(EmbeddingError) as info:
        await open_onnx(str(broken))
    assert info.value.cause == "onnx_load_failed"


@module_loop
async def test_long_texts_are_batched_under_the_token_cap(onnx: OnnxEmbedder) -> None:
    texts = [
        "short one",
        "word " * 400,
        "another short text",
        "medium length text " * 20,
    ]
    together = await onnx.embed(texts)
    for i, text in enumerate(texts):
        alone = await onnx.embed([text])
        assert np.allclose(together[i], alone[0], atol=1e-4), text[:20]


SENTENCES = [t for pair in PARAPHRASES for t in pair] + [
    "short text",
    "Ich wohne seit drei Jahren in Berlin und fahre mit dem Rad zur Arbeit.",
    "Remind me to renew the passport before the trip to Lisbon in March",
    "word " * 120,
]


@module_loop
async def test_integer_graph_vectors_are_close_to_the_float_graphs(
    onnx: OnnxEmbedder, float_graph: OnnxEmbedder
) -> None:
    assert float_graph.signature == "onnx:all-MiniLM-L6-v2-int8:384"
    assert onnx.signature != float_graph.signature  # not one vector space: a reindex
    fast = await onnx.embed(SENTENCES)
    exact = await float_graph.embed(SENTENCES)
    cosines = (fast * exact).sum(axis=1)
    assert cosines.min() > 0.97, list(zip(SENTENCES, cosines.round(3), strict=True))
    # What retrieval reads: each question's nearest statement is the same in both graphs.
    questions, statements = fast[1:8:2], fast[0:8:2]
    exact_q, exact_s = exact[1:8:2], exact[0:8:2]
    assert ((questions @ statements.T).argmax(axis=1) == np.arange(4)).all()
    assert ((exact_q @ exact_s.T).argmax(axis=1) == np.arange(4)).all()


@module_loop
async def test_integer_graph_gives_a_text_the_same_vector_in_any_batch(
    onnx: OnnxEmbedder,
) -> None:
    # Its activations are quantised with one scale per run: run together, a long text
    # would shift a short one's vector. memtap runs it one text at a time.
    together = await onnx.embed(SENTENCES)
    for i, text in enumerate(SENTENCES):
        assert np.array_equal(together[i], (await onnx.embed([text]))[0]), text[:20]


@pytest.fixture
def own_graph_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> pytest.LogCaptureFixture:
    """This test's own cache folder (not the run's shared one), and the embeddings log."""
    monkeypatch.delenv(CACHE_ENV)
    caplog.set_level(logging.INFO, logger="memtap.embeddings")
    return caplog


@module_loop
@pytest.mark.slow
async def test_integer_graph_is_built_once_into_the_cache_folder(
    tmp_path: Path, own_graph_log: pytest.LogCaptureFixture
) -> None:
    caplog = own_graph_log
    folder = tmp_path / "embeddings"
    folder.mkdir()
    # Graphs of other keys (older tools): one unused for 8 days, one another install of
    # other versions loaded yesterday from this shared folder.
    stale = folder / "model.int8-matmul.0123456789abcdef.onnx"
    recent = folder / "model.int8-matmul.fedcba9876543210.onnx"
    # A build killed midway two hours ago, and one that may still be running.
    abandoned, running = folder / "building-abc", folder / "building-def"
    for work in (abandoned, running):
        work.mkdir()
        (work / "folded.onnx").write_bytes(b"half a graph")
    for path, age_s in ((stale, 8 * 86400), (recent, 86400), (abandoned, 7200)):
        if not path.exists():
            path.write_bytes(b"built by other tools")
        os.utime(path, (time.time() - age_s, time.time() - age_s))
    first = await open_onnx(graph_cache=folder)
    await first.close()
    assert not abandoned.exists() and running.exists()
    assert not stale.exists() and recent.exists()
    built = [p for p in folder.glob("*.onnx") if p != recent]
    assert len(built) == 1 and built[0].name.startswith("model.int8-matmul.")
    inode = built[0].stat().st_ino
    second = await open_onnx(graph_cache=folder)
    try:
        assert second.signature == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
        assert built[0].stat().st_ino == inode  # read again, not rebuilt
        events = [getattr(r, "fields", {}) for r in caplog.records]
        assert [r.msg for r in caplog.records].count(
            "embeddings.integer_graph_built"
        ) == 1
        assert {"integer_matmul": True}.items() <= events[-1].items()
    finally:
        await second.close()


@module_loop
@pytest.mark.slow
async def test_a_damaged_cached_graph_is_built_again(
    tmp_path: Path, own_graph_log: pytest.LogCaptureFixture
) -> None:
    # What a power cut during a write without fsync could leave under the graph's name.
    model = packaged_model_path()
    assert model is not None
    cached = graph_file(tmp_path, model, cache_key(model))
    cached.write_bytes(b"\x08\x07 cut short")
    embedder = await open_onnx(graph_cache=tmp_path)
    try:
        assert embedder.signature.endswith("+int8-matmul-v2:384")
        assert cached.stat().st_size > 10_000_000
        assert not [r for r in own_graph_log.records if r.levelno >= logging.WARNING]
    finally:
        await embedder.close()


@module_loop
async def test_a_build_past_its_time_is_killed_and_the_models_graph_runs(
    tmp_path: Path,
    own_graph_log: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    float_graph: OnnxEmbedder,
) -> None:
    monkeypatch.setattr(integer_graph, "BUILD_TIMEOUT_S", 0.3)
    embedder = await open_onnx(graph_cache=tmp_path)
    try:
        assert embedder.signature == float_graph.signature
        assert "longer than 0.3 s" in _unavailable_because(own_graph_log)
        assert list(tmp_path.iterdir()) == []  # its work folder went with it
        assert not _builders_of(tmp_path)  # and so did the child
    finally:
        await embedder.close()


@module_loop
async def test_a_failed_build_says_why_and_the_models_graph_runs(
    tmp_path: Path,
    own_graph_log: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    float_graph: OnnxEmbedder,
) -> None:
    # A child that cannot start the build (here: its module is not there).
    monkeypatch.setattr(integer_graph, "_MODULE", "memtap.engine.embeddings.missing")
    embedder = await open_onnx(graph_cache=tmp_path)
    try:
        assert embedder.signature == float_graph.signature
        error = _unavailable_because(own_graph_log)
        assert "exited 1" in error and "No module named" in error, error
    finally:
        await embedder.close()


@module_loop
async def test_stopping_during_a_build_kills_the_child(
    tmp_path: Path, own_graph_log: pytest.LogCaptureFixture
) -> None:
    # memtap stopping at its first start must not wait for (or leave behind) the build.
    loading = asyncio.create_task(open_onnx(graph_cache=tmp_path))
    for _ in range(200):
        if _builders_of(tmp_path):
            break
        await asyncio.sleep(0.05)
    assert _builders_of(tmp_path), "the build child never started"
    loading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loading
    assert not _builders_of(tmp_path)
    assert not list(tmp_path.glob("*.onnx"))  # no graph under a name, whole or not
    assert not list(tmp_path.glob("building-*"))


def _unavailable_because(log: pytest.LogCaptureFixture) -> str:
    """The error of the first `embeddings.integer_graph_unavailable` line logged."""
    return next(
        r.fields["error"]  # type: ignore[attr-defined]
        for r in log.records
        if r.msg == "embeddings.integer_graph_unavailable"
    )


def _builders_of(folder: Path) -> list[str]:
    """Build children still running whose command line names `folder`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "integer_graph" in cmdline and str(folder) in cmdline:
            found.append(cmdline)
    return found


@module_loop
async def test_the_cache_folder_variable_wins_over_the_data_dir(
    tmp_path: Path, shared_onnx_graph_cache: Path
) -> None:
    embedder = await open_onnx(graph_cache=tmp_path / "data" / "embeddings")
    await embedder.close()
    assert not (tmp_path / "data").exists()
    assert list(shared_onnx_graph_cache.glob("model.int8-matmul.*.onnx"))


@module_loop
@pytest.mark.slow
async def test_an_unwritable_cache_folder_still_gets_the_integer_graph(
    tmp_path: Path, own_graph_log: pytest.LogCaptureFixture
) -> None:
    caplog = own_graph_log
    not_a_folder = tmp_path / "embeddings"
    not_a_folder.write_text("a file where the folder should be")
    embedder = await open_onnx(graph_cache=not_a_folder)
    try:
        assert embedder.signature.endswith("+int8-matmul-v2:384")  # built in memory
        warned = [
            r for r in caplog.records if r.msg == "embeddings.integer_graph_not_cached"
        ]
        assert warned and warned[0].fields["error"]  # type: ignore[attr-defined]
    finally:
        await embedder.close()


@module_loop
async def test_without_the_quantiser_the_models_own_graph_runs(
    float_graph: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A custom install without the `onnx` package: slower, never broken.
    monkeypatch.setitem(sys.modules, "onnx", None)
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)
    caplog.set_level(logging.WARNING, logger="memtap.embeddings")
    embedder = await open_onnx()
    try:
        assert embedder.signature == float_graph.signature
        assert "import of onnx halted" in _unavailable_because(caplog)
        text = ["the same graph, the same vector"]
        assert np.array_equal(await embedder.embed(text), await float_graph.embed(text))
    finally:
        await embedder.close()


@pytest.mark.slow
def test_the_build_runs_in_a_child_and_leaves_the_process_small(
    tmp_path: Path,
) -> None:
    # Built in-process the folded float graph and the quantiser's copies took the peak RSS
    # to ~435 MB; the proxy must stay near what the loaded session needs.
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from memtap.engine.embeddings.onnx import open_onnx\n"
        "async def main():\n"
        "    e = await open_onnx(graph_cache=Path(sys.argv[1]))\n"
        "    await e.embed(['one text'])\n"
        # VmHWM, not ru_maxrss: the latter keeps the forking parent's peak across exec.
        "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
        "    print(e.signature, 'onnxruntime.quantization' in sys.modules,\n"
        "          int(hwm[0].split()[1]) // 1024)\n"
        "asyncio.run(main())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != CACHE_ENV}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "graphs")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    signature, quantiser_loaded, peak_mb = done.stdout.split()
    assert signature == "onnx:all-MiniLM-L6-v2-int8+int8-matmul-v2:384"
    assert quantiser_loaded == "False"
    assert int(peak_mb) < 300, done.stdout
    assert len(list((tmp_path / "graphs").glob("model.int8-matmul.*.onnx"))) == 1


@pytest.mark.slow
def test_cli_build_graph_builds_once_where_serve_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from memtap.proxy.cli.main import main as memtap_main

    monkeypatch.delenv(CACHE_ENV)
    config = tmp_path / "memtap.yaml"
    config.write_text("memory:\n  strategy: hybrid\n")
    command = ["embeddings", "build-graph", "--data-dir", str(tmp_path / "data")]
    command += ["-c", str(config), "--json"]
    assert memtap_main(command) == 0
    first = json.loads(capsys.readouterr().out)
    # Where `memtap serve` with this data dir looks for it (resolve.graph_cache_folder).
    assert Path(first["path"]).parent == tmp_path / "data" / "embeddings"
    assert first["built"] is True and first["bytes"] > 10_000_000
    assert memtap_main(command) == 0
    again = json.loads(capsys.readouterr().out)
    assert again == {**first, "built": False}
    shared = tmp_path / "shared"
    monkeypatch.setenv(CACHE_ENV, str(shared))
    assert memtap_main(command[:-1]) == 0
    assert f"built {shared}" in capsys.readouterr().out


def test_cli_build_graph_says_what_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtap.proxy.cli.main import main as memtap_main

    config = tmp_path / "memtap.yaml"
    config.write_text(f"embedding:\n  onnx_model_path: {tmp_path / 'nope.onnx'}\n")
    assert memtap_main(["embeddings", "build-graph", "-c", str(config)]) == 1
    assert "no onnx model at" in capsys.readouterr().err
    monkeypatch.delenv(CACHE_ENV)  # not the run's shared folder, where the graph may be
    monkeypatch.setattr(integer_graph, "_MODULE", "memtap.engine.embeddings.missing")
    assert memtap_main(["embeddings", "build-graph", "--data-dir", str(tmp_path)]) == 1
    assert "exited 1" in capsys.readouterr().err
