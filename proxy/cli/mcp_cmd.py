"""`memtap mcp`: an MCP server on stdin/stdout whose tools manage one owner's memories through
a running memtap's admin API (see `proxy/mcp/`)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from memtap.proxy.adminclient import AdminClient, Target
from memtap.proxy.cli.client import (
    EXIT_USAGE,
    add_target_arguments,
    resolve_target,
)
from memtap.proxy.cli.memories_cmd import owner_id_of
from memtap.proxy.mcp.stdio import serve_stdio
from memtap.proxy.mcp.tools import MemoryTools, OwnerScope, memory_session, valid_owner


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "mcp",
        help="MCP server (stdio) with memory tools for one owner, over the admin API",
        description="Run an MCP server on stdin/stdout. Its tools (memory_search, "
        "memory_list, memory_get, memory_add, memory_update, memory_delete) act on one "
        "owner's memories through a running memtap's admin API.",
    )
    add_target_arguments(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument(
        "--owner", help="owner id the tools act on (see `memtap owner-id`)"
    )
    who.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the app's API key; the owner is derived from "
        "it (the key itself is never sent or logged)",
    )
    who.add_argument(
        "--any-owner",
        action="store_true",
        help="operators: every tool takes an `owner` argument instead",
    )
    parser.add_argument(
        "--session", help="default session of searches, lists and new memories"
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    owner: str | None = None
    if args.owner is not None:
        # Exactly as given: owner ids are case-sensitive, and an empty one would mean
        # "no owner filter" to the admin API.
        owner = args.owner
        if not valid_owner(owner):
            print(
                f"memtap mcp: --owner {owner!r} is not an owner id (see memtap owner-id)",
                file=sys.stderr,
            )
            return EXIT_USAGE
    elif args.api_key_env:
        # Stripped, as the proxy strips the key it reads from a request header.
        key = os.environ.get(args.api_key_env, "").strip()
        if not key:
            print(f"memtap mcp: ${args.api_key_env} is not set", file=sys.stderr)
            return EXIT_USAGE
        owner = owner_id_of(key)
    target = resolve_target(args)
    try:
        asyncio.run(_serve(target, OwnerScope(owner, args.session or None)))
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the client went away: nothing left to answer
    return 0


async def _serve(target: Target, scope: OwnerScope) -> None:
    async with AdminClient(target, timeout_s=30.0) as client:
        session = memory_session(MemoryTools(client, scope))
        await serve_stdio(session, sys.stdin.buffer, sys.stdout.buffer)
