"""`memtap check-config [-c FILE] [--json]`: validate a config file without starting anything.

Prints `ok` and exits 0 when valid; otherwise prints one `path: message` line per problem
(every problem, not only the first) and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from memtap.config.loader import ConfigError, load_config_detailed


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check-config",
        help="validate a config file and print every error with its YAML path",
        description="Validate a memtap config file. Exit 0 when valid, 1 on any error.",
    )
    parser.add_argument(
        "-c",
        "--config",
        metavar="FILE",
        default=None,
        help="config file (default: config/memtap.yaml if present, else built-in defaults)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON object instead of text"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        loaded = load_config_detailed(args.config)
    except ConfigError as exc:
        if args.json:
            print(
                json.dumps({"ok": False, "path": exc.source, "errors": exc.to_json()})
            )
        else:
            for issue in exc.errors:
                print(issue)
            count = len(exc.errors)
            print(
                f"{exc.source or args.config}: {count} error{'s' if count != 1 else ''}",
                file=sys.stderr,
            )
        return 1
    source = loaded.path or "(built-in defaults)"
    if args.json:
        print(json.dumps({"ok": True, "path": source, "errors": []}))
    else:
        print("ok")
    return 0
