"""What the CLI commands share around the admin API client (`proxy/adminclient/`).

Target resolution (first match wins):
  URL:   --url, $MEMTAP_ADMIN_URL, the config file's `admin.listen` then `listen`, 127.0.0.1:8080
  token: --token, $MEMTAP_ADMIN_TOKEN, the config file's `admin.token`
The config file is `-c FILE`, else `config/memtap.yaml` when it exists. Output helpers print
readable tables by default and raw JSON with `--json`; progress bars go to stderr (TTY only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Final

import yaml

from memtap.config.convert import Issues, expand_env
from memtap.proxy.adminclient import (
    AdminClient,
    ApiError,
    Incomplete,
    Target,
    Unreachable,
)

DEFAULT_CONFIG: Final = "config/memtap.yaml"
DEFAULT_LISTEN: Final = "127.0.0.1:8080"
EXIT_OK, EXIT_API_ERROR, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


# -- target resolution ----------------------------------------------------------------------


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """--url / --token / -c / --json, shared by every command that talks to the admin API."""
    parser.add_argument(
        "--url",
        help="memtap base URL (default: $MEMTAP_ADMIN_URL or the config's listen address)",
    )
    parser.add_argument(
        "--token",
        help="admin token (default: $MEMTAP_ADMIN_TOKEN or the config's admin.token)",
    )
    parser.add_argument(
        "-c",
        "--config",
        help=f"config file to read the address and token from (default {DEFAULT_CONFIG})",
    )
    parser.add_argument(
        "--json", action="store_true", help="machine-readable JSON output"
    )


def _expand(value: Any, path: str, file: Path) -> str | None:
    # The server's own `${VAR}` / `${VAR:-default}` expansion: an unset variable without a
    # default is the same error here as when memtap serve reads the file.
    if not isinstance(value, str):
        return None
    issues = Issues()
    text, _ = expand_env(value, path, issues)
    if issues:
        problem = issues.items[0]
        raise SystemExit(f"memtap: {file}: {problem.path}: {problem.message}")
    return text or None


def _config_values(path: str | None) -> tuple[str | None, str | None, str | None]:
    """(listen, admin.listen, admin.token) from the YAML file, or Nones when there is none."""
    file = Path(path) if path else Path(DEFAULT_CONFIG)
    if not file.is_file():
        if path:
            raise SystemExit(f"memtap: config file not found: {path}")
        return None, None, None
    data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        return None, None, None
    admin = data.get("admin")
    if not isinstance(admin, dict):
        admin = {}
    return (
        _expand(data.get("listen"), "listen", file),
        _expand(admin.get("listen"), "admin.listen", file),
        _expand(admin.get("token"), "admin.token", file),
    )


def url_from_listen(listen: str) -> str:
    host, _, port = listen.rpartition(":")
    # A wildcard bind address is not something to connect to: use loopback.
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host in ("[::]", "::"):
        host = "[::1]"
    return f"http://{host}:{port}"


def resolve_target(
    args: argparse.Namespace, environ: Mapping[str, str] = os.environ
) -> Target:
    listen, admin_listen, config_token = _config_values(args.config)
    url = (
        args.url
        or environ.get("MEMTAP_ADMIN_URL")
        or url_from_listen(admin_listen or listen or DEFAULT_LISTEN)
    )
    token = args.token or environ.get("MEMTAP_ADMIN_TOKEN") or config_token
    return Target(base_url=url.rstrip("/"), token=token)


def run_api_command(
    action: Callable[[AdminClient], Awaitable[int]], args: argparse.Namespace
) -> int:
    """Run `action` with a client for `args` in its own event loop, turning API and
    connection errors into exit codes."""
    return asyncio.run(_run_api_command(action, args))


async def _run_api_command(
    action: Callable[[AdminClient], Awaitable[int]], args: argparse.Namespace
) -> int:
    try:
        async with AdminClient(resolve_target(args)) as client:
            return await action(client)
    except ApiError as exc:
        if args.json:
            print(
                json.dumps(
                    {
                        "error": {
                            "code": exc.code,
                            "message": exc.message,
                            "status": exc.status,
                        }
                    }
                ),
                file=sys.stderr,
            )
        else:
            print(
                f"memtap: {exc.message} ({exc.code}, HTTP {exc.status})",
                file=sys.stderr,
            )
        return EXIT_API_ERROR
    except Incomplete as exc:
        # The server cut a streamed answer (e.g. an export failed half-way).
        print(f"memtap: {exc}", file=sys.stderr)
        return EXIT_API_ERROR
    except Unreachable as exc:
        print(f"memtap: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except ConnectionError as exc:
        # Not from the client: a closed stdout pipe while exporting (BrokenPipeError).
        print(
            f"memtap: incomplete answer from memtap: {type(exc).__name__}",
            file=sys.stderr,
        )
        return EXIT_API_ERROR


# -- output ---------------------------------------------------------------------------------


def print_json(value: Any, out: IO[str] = sys.stdout) -> None:
    out.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def _cell(value: Any, width: int) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split())  # newlines and tabs would break the table
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def print_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[tuple[str, int]],
    out: IO[str] = sys.stdout,
) -> None:
    """Fixed columns `(name, max width)`; the last column takes what is left of the text."""
    widths = [
        min(
            limit, max([len(name)] + [len(_cell(row.get(name), limit)) for row in rows])
        )
        for name, limit in columns
    ]
    out.write(
        "  ".join(
            name.upper().ljust(w) for (name, _), w in zip(columns, widths, strict=True)
        ).rstrip()
        + "\n"
    )
    for row in rows:
        cells = [
            _cell(row.get(name), w).ljust(w)
            for (name, _), w in zip(columns, widths, strict=True)
        ]
        out.write("  ".join(cells).rstrip() + "\n")


class Progress:
    """A one-line progress bar on stderr; silent when stderr is not a terminal (scripts, CI),
    unless `lines` asks for one plain line per tenth of the way there (a log, a pipe)."""

    def __init__(
        self,
        label: str,
        total: int,
        stream: IO[str] = sys.stderr,
        *,
        force: bool = False,
        lines: bool = False,
    ) -> None:
        self.label, self.total, self.stream = label, max(total, 1), stream
        self.enabled = force or stream.isatty()
        self.lines = lines and not self.enabled
        self.done = 0
        self._last = 0.0
        self._tenth = 0

    def advance(self, amount: int) -> None:
        self.update(self.done + amount)

    def update(self, done: int) -> None:
        self.done = done
        if self.lines:
            tenth = min(10, done * 10 // self.total)
            if tenth > self._tenth:
                self._tenth = tenth
                self.stream.write(
                    f"{self.label}: {tenth * 10}% sent ({done} of {self.total} bytes)\n"
                )
                self.stream.flush()
            return
        now = time.monotonic()
        if self.enabled and (now - self._last >= 0.1 or done >= self.total):
            self._last = now
            fraction = min(1.0, done / self.total)
            bar = "#" * int(fraction * 30)
            self.stream.write(
                f"\r{self.label} [{bar:<30}] {fraction * 100:5.1f}% {done}/{self.total}"
            )
            self.stream.flush()

    def finish(self, lines_done: str = "done") -> None:
        if self.lines:
            self.stream.write(f"{self.label}: {lines_done}\n")
            self.stream.flush()
        if self.enabled:
            self.update(self.total)
            self.stream.write("\n")
            self.stream.flush()


def file_chunks(
    stream: IO[bytes], progress: Progress, size: int = 64 * 1024
) -> Iterator[bytes]:
    while chunk := stream.read(size):
        progress.advance(len(chunk))
        yield chunk


async def reindex_with_progress(
    client: AdminClient,
    *,
    batch: int = 256,
    force: bool = False,
    stream: IO[str] | None = None,
    force_bar: bool = False,
) -> dict[str, Any]:
    """Drive POST /api/reindex in batches (it is resumable) until nothing is pending, with a bar.

    Each call embeds at most `batch` memories and reports `done`, `pending` and `finished`;
    `force` (re-embed everything) is sent with the first batch only, since it marks every
    memory pending once. Returns the last report with `done` summed over the batches."""
    total_done = 0
    progress: Progress | None = None
    report: dict[str, Any] = {}
    while True:
        report = await client.request(
            "POST",
            "/api/reindex",
            body={"limit": batch, "force": force and progress is None},
        )
        if not report.get("started", True):
            break  # no vector tier: the report says why
        done = int(report.get("done", 0))
        pending = int(report.get("pending", 0))
        total_done += done
        if progress is None:
            progress = Progress(
                "reindex", total_done + pending, stream or sys.stderr, force=force_bar
            )
        progress.update(total_done)
        if report.get("finished") or pending <= 0 or done <= 0:
            break
    if progress is not None:
        progress.finish()
    return {**report, "done": total_done}
