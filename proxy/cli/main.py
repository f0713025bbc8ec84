"""`memtap` console script: one subcommand module per area, each exposing `register(subparsers)`.

Reading the list below tells you every command memtap has.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from memtap.proxy import __version__
from memtap.proxy.cli import (
    ca_cmd,
    config_cmd,
    conversations_cmd,
    embeddings_cmd,
    mcp_cmd,
    memories_cmd,
    owners_cmd,
    serve_cmd,
)

COMMAND_MODULES = (
    serve_cmd,
    config_cmd,
    memories_cmd,
    conversations_cmd,
    owners_cmd,
    embeddings_cmd,
    mcp_cmd,
    ca_cmd,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memtap", description="Persistent memory proxy for LLM APIs."
    )
    parser.add_argument("--version", action="version", version=f"memtap {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
