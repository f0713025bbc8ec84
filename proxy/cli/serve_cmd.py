"""`memtap serve`: load the config (flags > YAML > defaults), set up logs, run the proxy.

Prints exactly one line on stdout, `memtap listening on http://HOST:PORT`, once the port is
bound (PORT is the real port, so `--listen 127.0.0.1:0` works). Exit codes: 0 after a graceful
shutdown (SIGTERM/SIGINT), 1 for an invalid configuration or a failed start.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any

FORMATS = ("openai", "anthropic", "gemini")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

log = logging.getLogger("memtap.server")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve",
        help="run the proxy",
        description="Run the memtap proxy in the foreground.",
    )
    parser.add_argument(
        "-c",
        "--config",
        metavar="FILE",
        help="YAML config (default: config/memtap.yaml if present)",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="address to listen on (port 0 = any free port)",
    )
    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="single upstream for every path (replaces `upstreams`)",
    )
    parser.add_argument(
        "--format", choices=FORMATS, help="API format of the upstream(s)"
    )
    parser.add_argument("--data-dir", metavar="DIR", help="where memories are stored")
    parser.add_argument(
        "--admin-token", metavar="TOKEN", help="bearer token for the admin API"
    )
    parser.add_argument(
        "--log-format", choices=("json", "text"), help="json lines (default) or text"
    )
    parser.add_argument(
        "--log-level", metavar="LEVEL", help="debug, info, warning or error"
    )
    parser.set_defaults(handler=run)


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The flags that were given, keyed as `config.loader.load_config` expects."""
    given = {
        "listen": args.listen,
        "upstream": args.upstream,
        "format": args.format,
        "data_dir": args.data_dir,
        "admin.token": args.admin_token,
        "log.format": args.log_format,
        "log.level": args.log_level,
    }
    return {key: value for key, value in given.items() if value is not None}


def run_loop(main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run on uvloop when it is installed (faster sockets), else on asyncio's default loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


def _announce(base_url: str) -> None:
    print(f"memtap listening on {base_url}", flush=True)


def _exit_before_start(signum: int, frame: FrameType | None) -> None:
    # SIGTERM/SIGINT before the event loop runs: nothing is accepted or queued yet.
    raise SystemExit(0)


async def _serve_until_signal(
    serve: Callable[[], Coroutine[Any, Any, int]],
) -> int:
    """`serve()`, with SIGTERM/SIGINT during start-up (opening the store, loading the model)
    cancelling it cleanly and exiting 0. Once listening, `serve` installs its own handlers
    (graceful stop), which replace these."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, task.cancel)
    try:
        return await serve()
    except asyncio.CancelledError:
        log.info("server.start_cancelled")
        return 0


def run(args: argparse.Namespace) -> int:
    for sig in STOP_SIGNALS:
        signal.signal(sig, _exit_before_start)
    from memtap.config.holder import ConfigHolder
    from memtap.config.loader import ConfigError
    from memtap.config.settings import apply_log_level
    from memtap.proxy.logs import configure_logging
    from memtap.proxy.server import serve

    overrides = flag_overrides(args)
    try:
        holder = ConfigHolder.load(args.config, overrides)
    except ConfigError as exc:
        print(f"memtap: invalid configuration:\n{exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"memtap: cannot read the configuration: {exc}", file=sys.stderr)
        return 1
    config = holder.current
    try:
        logs = configure_logging(config.log.format, config.log.level, config.log.file)
    except (ValueError, OSError) as exc:
        print(f"memtap: cannot set up logging: {exc}", file=sys.stderr)
        return 1
    # aiosqlite logs every query at debug ("executing <function ...>"): not memtap events, and
    # enough of them to drown `--log-level debug`. Its warnings and errors still pass.
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
    # log.level can change at run time (YAML reload or a settings override).
    holder.subscribe(apply_log_level)
    try:

        async def main() -> int:
            return await _serve_until_signal(lambda: serve(holder, _announce))

        return run_loop(main)
    except OSError as exc:  # e.g. the port is taken
        print(f"memtap: cannot start: {exc}", file=sys.stderr)
        return 1
    finally:
        logs.close()
