"""Shared fixtures: a provider stand-in, memtap in-process, memtap as a subprocess.

- `standin` → a started `tests.support.standin.Standin` (see that module for its endpoints);
  `standin.url` is its base URL, `standin.requests` what it received.
- `memtap_config(**changes)` → a `Config` pointed at the stand-in (upstream `standin`, prefix
  `/`), data_dir in tmp_path, memory OFF unless `memory=MemoryConfig(...)` is passed.
- `memtap_server` → async factory: `srv = await memtap_server(config=None, *, watch_config=False,
  config_path=None, addons=None)` starts memtap IN-PROCESS on 127.0.0.1:0 and returns a
  `MemtapServer` (`.url`, `.runtime` with `.engine`/`.metrics`/`.config`, `.stop()`). Without
  `config` it uses `memtap_config()`. Everything started is stopped at teardown.
- `memtap_process` → async factory: `proc = await memtap_process(doc=None, *, args=(),
  yaml_text=None, env=None)` writes a YAML file (defaults below, `doc` deep-merged on top, or
  `yaml_text` verbatim) and runs `memtap serve -c FILE [args]`, waiting for the listening
  line (`config_file=False`: no `-c`, flags only; the cwd is tmp_path). `proc.url`, `proc.stderr_text()`, `proc.log_events()` (parsed JSON log lines),
  `await proc.terminate()` (SIGTERM, returns the exit code), `await proc.wait()`. Killed at
  teardown if still alive.
- `blocking_guard` → `with blocking_guard(): ...` fails the test when the event loop thread
  does blocking I/O inside the block (blockbuster); for code paths that must stay non-blocking.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from memtap.config.holder import ConfigHolder
from memtap.config.schema import (
    Config,
    EmbeddingConfig,
    MemoryConfig,
    UpstreamConfig,
    VectorStoreConfig,
)
from memtap.engine.metrics import Metrics
from memtap.engine.types import NewMemory
from memtap.proxy.addons import default_addons
from memtap.proxy.appkeys import Runtime
from memtap.proxy.headers import owner_id_for_key
from memtap.proxy.server import AddonFactory, RunningServer, start_server
from tests.support.standin import Standin

LISTENING_PREFIX = "memtap listening on "


def _build_query_projection(folder: Path) -> None:
    """The query projection every ONNX memtap of the run reads (`memtap serve` builds it at
    start when missing: ~20 s in a child, which a test's short-lived server would kill and
    the next one start again). Also builds the integer graph into `folder`."""
    from memtap.engine.embeddings.onnx import open_onnx, packaged_model_path
    from memtap.engine.embeddings.query_projection import build_sync, projection_file

    if packaged_model_path() is None:
        return

    async def build() -> None:
        embedder = await open_onnx(graph_cache=folder)
        try:
            await asyncio.to_thread(
                build_sync, embedder, projection_file(folder, embedder.signature)
            )
        finally:
            await embedder.close()

    asyncio.run(build())


# The run's graph and projection, built once per run: the main process (pytest's own, or
# xdist's controller) makes the folder and starts the build in a thread before the workers
# exist, so that it overlaps their start-up and collection; each process that runs tests
# waits for it on the folder's lock after collecting (outside any test's timeout), and
# builds itself only if that build failed.
_SHARED_FOLDER_ENV = "MEMTAP_TEST_SHARED_GRAPH"
_BUILT_MARK = ".built"
_shared_build: threading.Thread | None = None
_shared_folder: Path | None = None
_cache_env_before: str | None = None


def _build_once(folder: Path, lock_fd: int) -> None:
    """With the folder's lock held (`lock_fd`, released here): build unless built."""
    try:
        if not (folder / _BUILT_MARK).exists():
            _build_query_projection(folder)
            (folder / _BUILT_MARK).touch()
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)


def _lock(folder: Path) -> int:
    fd = os.open(folder / ".lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _is_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput") and bool(
        getattr(config.option, "numprocesses", 0)
    )


def pytest_configure(config: pytest.Config) -> None:
    global _shared_build, _shared_folder, _cache_env_before
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller's folder, from the environment
    from memtap.engine.embeddings.integer_graph import CACHE_ENV

    folder = _shared_folder = _graph_folder()
    _cache_env_before = os.environ.get(CACHE_ENV)
    os.environ[_SHARED_FOLDER_ENV] = str(folder)  # xdist's workers inherit both
    os.environ[CACHE_ENV] = str(folder)
    if config.option.collectonly:
        return
    lock_fd = _lock(folder)  # taken before any worker can look
    _shared_build = threading.Thread(
        target=_build_once, args=(folder, lock_fd), name="onnx-build", daemon=True
    )
    _shared_build.start()


def pytest_collection_finish(session: pytest.Session) -> None:
    if _is_controller(session.config) or session.config.option.collectonly:
        return
    if session.items:
        folder = Path(os.environ[_SHARED_FOLDER_ENV])
        _build_once(folder, _lock(folder))


def _graph_folder() -> Path:
    """Where the run's graph and projection live. In a virtualenv (`make test`'s), a folder
    of the venv named by what they are built from (the packaged model file, the code that
    builds them): the next run with a warm venv finds them built, as a deployment finds its
    own cache (~25 s of CPU a run saved). Elsewhere, or with MEMTAP_TEST_FRESH_GRAPH=1, a
    temporary folder removed at the end."""
    from memtap.engine.embeddings.onnx import packaged_model_path

    model = packaged_model_path()
    if (
        sys.prefix == sys.base_prefix
        or model is None
        or os.environ.get("MEMTAP_TEST_FRESH_GRAPH")
    ):
        return Path(tempfile.mkdtemp(prefix="memtap-test-onnx-"))
    built_from = hashlib.sha256()
    stat = Path(model).stat()
    built_from.update(f"{model}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    for source in sorted(
        Path(__file__).parent.parent.joinpath("engine", "embeddings").glob("*.py")
    ):
        built_from.update(source.read_bytes())
    folder = Path(sys.prefix) / "memtap-test-graph" / built_from.hexdigest()[:16]
    for older in folder.parent.glob("*"):
        if older != folder:  # built from another model or code: never read again
            shutil.rmtree(older, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _is_kept(folder: Path) -> bool:
    return folder.parent.name == "memtap-test-graph"


def pytest_unconfigure(config: pytest.Config) -> None:
    from memtap.engine.embeddings.integer_graph import CACHE_ENV

    if _shared_folder is None:
        return
    if _shared_build is not None:
        _shared_build.join()
    if not _is_kept(_shared_folder):
        shutil.rmtree(_shared_folder, ignore_errors=True)
    os.environ.pop(_SHARED_FOLDER_ENV, None)
    if _cache_env_before is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = _cache_env_before


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """In an xdist worker (`make test` hands out whole files, `--dist loadfile`, in this
    order): the files with the most `slow` tests go out first, so that no long file starts
    last while the other workers sit idle. A run without xdist keeps the written order."""
    if not hasattr(config, "workerinput"):
        return
    slow: dict[Path, int] = {}
    for item in items:
        if item.get_closest_marker("slow") is not None:
            slow[item.path] = slow.get(item.path, 0) + 1
    items.sort(key=lambda item: -slow.get(item.path, 0))  # stable: files stay whole


@pytest.fixture(scope="session", autouse=True)
def shared_onnx_graph_cache() -> Iterator[Path]:
    """One integer-matmul graph and query projection for the whole run (building them takes
    ~25 s of CPU; `pytest_configure` starts it, unless a run with the same venv and model
    built them already: `_graph_folder`): every test's fresh data dir, in-process or
    a `memtap serve` child, reads them from this folder. Tests of the default location
    clear the variable (`monkeypatch.delenv`)."""
    from memtap.engine.embeddings.integer_graph import CACHE_ENV

    folder = Path(os.environ[_SHARED_FOLDER_ENV])
    _build_once(folder, _lock(folder))  # built after collection: this only checks
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = before


# -- the provider stand-in ---------------------------------------------------------------


@pytest.fixture
async def standin() -> AsyncIterator[Standin]:
    async with Standin() as server:
        yield server


# -- memtap in-process -------------------------------------------------------------------


@pytest.fixture
def memtap_config(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[..., Config]:
    """Factory for a Config aimed at the stand-in; keyword arguments replace Config fields."""

    def make(**changes: Any) -> Config:
        if "upstreams" not in changes:
            upstream = request.getfixturevalue("standin")
            changes["upstreams"] = (
                UpstreamConfig(
                    name="standin", url=upstream.url, format="auto", timeout_s=30.0
                ),
            )
        changes.setdefault("data_dir", str(tmp_path / "data"))
        changes.setdefault("listen", "127.0.0.1:0")
        changes.setdefault("memory", MemoryConfig(enabled=False))
        return dataclasses.replace(Config(), **changes)

    return make


@dataclass(slots=True)
class MemtapServer:
    running: RunningServer
    holder: ConfigHolder

    @property
    def url(self) -> str:
        return self.running.base_url

    @property
    def runtime(self) -> Runtime:
        return self.running.runtime

    @property
    def metrics(self) -> Metrics:
        return self.running.runtime.metrics

    async def stop(self) -> None:
        await self.running.stop()


@pytest.fixture
async def memtap_server(
    memtap_config: Callable[..., Config], tmp_path: Path
) -> AsyncIterator[Callable[..., Awaitable[MemtapServer]]]:
    started: list[MemtapServer] = []

    async def start(
        config: Config | None = None,
        *,
        watch_config: bool = False,
        config_path: str | os.PathLike[str] | None = None,
        addons: AddonFactory | None = None,
    ) -> MemtapServer:
        config = config if config is not None else memtap_config()
        # A path that does not exist keeps the repo's config/memtap.yaml out of the test.
        path = (
            str(config_path)
            if config_path is not None
            else str(tmp_path / f"absent-{len(started)}.yaml")
        )
        holder = ConfigHolder(config, path)
        running = await start_server(
            holder,
            listen=("127.0.0.1", 0),
            addons=addons if addons is not None else default_addons,
            watch_config=watch_config,
        )
        server = MemtapServer(running, holder)
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        if server.running.runner.server is not None:
            await server.stop()


KeywordMemtap = Callable[..., Awaitable[MemtapServer]]


@pytest.fixture
def keyword_memtap(
    standin: Standin,
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
) -> KeywordMemtap:
    """memtap in front of the stand-in with memory on, by keywords alone (no model, no
    vectors): for the tests of the memory path that need a real engine but no ranking by
    meaning. `remembered=(api_key, content)` stores a memory for that key's owner first;
    other keyword arguments replace Config fields (e.g. `server=`)."""

    async def start(
        *, remembered: tuple[str, str] | None = None, **changes: Any
    ) -> MemtapServer:
        config = memtap_config(
            upstreams=(
                UpstreamConfig(name="standin", url=standin.url, timeout_s=30.0),
            ),
            memory=MemoryConfig(enabled=True, strategy="keyword", scope="owner"),
            embedding=EmbeddingConfig(source="none"),
            vector_store=VectorStoreConfig(kind="none"),
        )
        server = await memtap_server(dataclasses.replace(config, **changes))
        engine = server.runtime.engine
        assert engine is not None, server.runtime.engine_error
        if remembered is not None:
            key, content = remembered
            await engine.create_memory(
                NewMemory(owner=owner_id_for_key(key), content=content)
            )
        return server

    return start


# -- memtap as a subprocess --------------------------------------------------------------


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _memtap_command() -> list[str]:
    script = Path(sys.executable).with_name("memtap")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memtap.proxy"]


@dataclass(slots=True)
class MemtapProcess:
    proc: asyncio.subprocess.Process
    url: str
    config_path: Path
    stderr_path: Path
    stdout_lines: list[str] = field(default_factory=list)

    def stderr_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def log_events(self) -> list[dict[str, Any]]:
        events = []
        for line in self.stderr_text().splitlines():
            if line.startswith("{"):
                events.append(json.loads(line))
        return events

    async def read_stdout(self) -> str:
        """Whatever the process printed on stdout after the listening line (call after exit)."""
        assert self.proc.stdout is not None
        rest = await self.proc.stdout.read()
        return rest.decode("utf-8", errors="replace")

    async def terminate(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send `sig` (once) and wait for the exit code."""
        if self.proc.returncode is None:
            self.proc.send_signal(sig)
        return await self.wait(timeout)

    async def wait(self, timeout: float = 30.0) -> int:
        """Wait for the process to exit on its own (e.g. after a signal the test sent)."""
        return await asyncio.wait_for(self.proc.wait(), timeout)


@pytest.fixture
async def memtap_process(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[..., Awaitable[MemtapProcess]]]:
    started: list[MemtapProcess] = []

    async def start(
        doc: dict[str, Any] | None = None,
        *,
        args: Sequence[str] = (),
        yaml_text: str | None = None,
        env: dict[str, str] | None = None,
        startup_timeout: float = 30.0,
        config_file: bool = True,
    ) -> MemtapProcess:
        index = len(started)
        config_path = tmp_path / f"memtap-{index}.yaml"
        if yaml_text is None:
            defaults: dict[str, Any] = {
                "listen": "127.0.0.1:0",
                "data_dir": str(tmp_path / "data"),
                "memory": {"enabled": False},
                "log": {"format": "json", "level": "info"},
            }
            if not (doc and "upstreams" in doc):
                upstream = request.getfixturevalue("standin")
                defaults["upstreams"] = [{"name": "standin", "url": upstream.url}]
            yaml_text = yaml.safe_dump(
                _deep_merge(defaults, doc or {}), sort_keys=False
            )
        config_path.write_text(yaml_text, encoding="utf-8")
        config_args = ["-c", str(config_path)] if config_file else []
        stderr_path = tmp_path / f"memtap-{index}.stderr"
        with stderr_path.open("wb") as stderr_file:
            proc = await asyncio.create_subprocess_exec(
                *_memtap_command(),
                "serve",
                *config_args,
                *args,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr_file,
                cwd=str(tmp_path),
                env={**os.environ, **(env or {})},
            )
        handle = MemtapProcess(proc, "", config_path, stderr_path)
        started.append(handle)
        assert proc.stdout is not None
        try:
            while True:
                raw = await asyncio.wait_for(proc.stdout.readline(), startup_timeout)
                if not raw:
                    code = await proc.wait()
                    raise AssertionError(
                        f"memtap exited ({code}) before listening:\n{handle.stderr_text()}"
                    )
                line = raw.decode("utf-8").rstrip("\n")
                handle.stdout_lines.append(line)
                if line.startswith(LISTENING_PREFIX):
                    handle.url = line[len(LISTENING_PREFIX) :]
                    return handle
        except TimeoutError:
            raise AssertionError(
                f"memtap did not start in {startup_timeout}s:\n{handle.stderr_text()}"
            ) from None

    yield start
    for handle in started:
        if handle.proc.returncode is None:
            handle.proc.kill()
            await handle.proc.wait()


# -- event-loop blocking guard -----------------------------------------------------------


@pytest.fixture
def blocking_guard() -> Callable[[], AbstractContextManager[object]]:
    """`with blocking_guard(): ...` fails the test on blocking calls (file/socket I/O,
    time.sleep) made from the event loop thread inside the block. Enter it after setup
    (starting servers reads files, legitimately)."""
    from blockbuster import blockbuster_ctx

    return blockbuster_ctx


# -- the admin API -----------------------------------------------------------------------


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def admin(
    memtap_server: Callable[..., Awaitable[MemtapServer]],
    memtap_config: Callable[..., Config],
    http: aiohttp.ClientSession,
    standin: Standin,
) -> Any:
    """memtap with the admin API's defaults (`tests/support/admin.py`); a test module
    that needs another config defines its own `admin` fixture."""
    from tests.support.admin import start_admin  # it imports this module

    return await start_admin(memtap_server, memtap_config, http)
