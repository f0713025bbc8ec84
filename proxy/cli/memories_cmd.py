"""`memtap memories list|add|delete|export|import` over the admin API, and `memtap owner-id`."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from memtap.proxy.adminclient import AdminClient
from memtap.proxy.cli.client import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    add_target_arguments,
    file_chunks,
    print_json,
    print_table,
    run_api_command,
)
from memtap.proxy.owners import end_user_owner, user_tag

MEMORY_TYPES = ("factual", "episodic", "procedural", "semantic")
LIST_COLUMNS = (
    ("id", 36),
    ("owner", 24),
    ("type", 10),
    ("session", 16),
    ("updated_at", 24),
    ("content", 60),
)


def owner_id_of(api_key: str) -> str:
    """The contract's owner id: sha256 of the key, lowercase hex, first 24 characters."""
    return hashlib.sha256(api_key.encode("utf-8")).hexdigest()[:24]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    owner = sub.add_parser(
        "owner-id", help="print the owner id memtap derives from an API key"
    )
    owner.add_argument(
        "api_key",
        metavar="API_KEY",
        help="the key, or - to read it from stdin (keeps it out of history)",
    )
    owner.add_argument(
        "--user",
        metavar="ID",
        help="an end user behind the key (X-Memtap-User, or the body's user field): "
        "prints that user's owner id, KEYOWNER:USERTAG",
    )
    owner.set_defaults(handler=_owner_id)

    memories = sub.add_parser(
        "memories", help="list, add, delete, export and import memories (admin API)"
    )
    actions = memories.add_subparsers(dest="action", required=True, metavar="ACTION")

    listing = actions.add_parser("list", help="list memories (newest first)")
    add_target_arguments(listing)
    listing.add_argument("--owner")
    listing.add_argument("--session")
    listing.add_argument("--type", choices=MEMORY_TYPES)
    listing.add_argument("-q", "--query", dest="q", help="full-text search")
    listing.add_argument("--limit", type=int, default=50)
    listing.add_argument("--offset", type=int, default=0)
    listing.add_argument(
        "--include-superseded",
        action="store_true",
        help="also show replaced (historical) memories",
    )
    listing.set_defaults(handler=_list)

    add = actions.add_parser("add", help="create a memory")
    add_target_arguments(add)
    add.add_argument("--owner", required=True, help="owner id (see `memtap owner-id`)")
    add.add_argument(
        "content", nargs="?", help="memory text, or - to read it from stdin"
    )
    # Also as a flag: `memtap memories add --owner X --content Y` is what people type.
    add.add_argument(
        "--content",
        dest="content_flag",
        metavar="TEXT",
        help="memory text (instead of the positional CONTENT)",
    )
    add.add_argument("--type", choices=MEMORY_TYPES, default="factual")
    add.add_argument(
        "--key",
        help="upsert key: a new memory with the same owner and key replaces the old",
    )
    add.add_argument("--session")
    add.add_argument("--metadata", help="JSON object")
    add.add_argument("--expires-at", help="ISO 8601 timestamp")
    add.set_defaults(handler=_add)

    delete = actions.add_parser("delete", help="delete memories by id")
    add_target_arguments(delete)
    delete.add_argument("ids", nargs="+", metavar="ID")
    delete.set_defaults(handler=_delete)

    export = actions.add_parser(
        "export", help="export an owner's memories as JSON lines"
    )
    add_target_arguments(export)
    export.add_argument("owner", metavar="OWNER", nargs="?")
    export.add_argument(
        "--owner", dest="owner_flag", help="owner id (instead of the positional OWNER)"
    )
    export.add_argument("-o", "--output", help="file to write (default stdout)")
    export.add_argument(
        "--episodes",
        action="store_true",
        help="also export what the owner said (episodes), after the memories: a whole "
        "owner's backup that import brings back",
    )
    export.set_defaults(handler=_export)

    imp = actions.add_parser(
        "import", help="import JSON lines (as written by export); upserts by id"
    )
    add_target_arguments(imp)
    imp.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        default="-",
        help="JSON lines file, or - for stdin (the default)",
    )
    imp.set_defaults(handler=_import)


def _owner_id(args: argparse.Namespace) -> int:
    key = sys.stdin.readline().strip() if args.api_key == "-" else args.api_key
    if not key:
        print("memtap: empty API key", file=sys.stderr)
        return EXIT_USAGE
    owner = owner_id_of(key)
    if args.user is not None:
        if not args.user.strip():
            print("memtap: empty end user ID", file=sys.stderr)
            return EXIT_USAGE
        owner = end_user_owner(owner, user_tag(args.user))
    print(owner)
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    async def action(client: AdminClient) -> int:
        params: dict[str, Any] = {
            "owner": args.owner,
            "session": args.session,
            "type": args.type,
            "q": args.q,
            "limit": args.limit,
            "offset": args.offset,
            "include_superseded": True if args.include_superseded else None,
        }
        page = await client.request("GET", "/api/memories", params=params)
        if args.json:
            print_json(page)
            return EXIT_OK
        print_table(page["items"], LIST_COLUMNS)
        shown = len(page["items"])
        first = args.offset + 1 if shown else args.offset
        print(f"{first}-{args.offset + shown} of {page['total']}", file=sys.stderr)
        return EXIT_OK

    return run_api_command(action, args)


def _one_of(positional: str | None, flag: str | None, name: str) -> str | None:
    """The value given either way; None (after printing why) when missing or given twice."""
    if positional is not None and flag is not None and positional != flag:
        print(f"memtap: give {name} once (positional or --{name})", file=sys.stderr)
        return None
    value = positional if positional is not None else flag
    if value is None:
        print(f"memtap: {name} is required", file=sys.stderr)
    return value


def _add(args: argparse.Namespace) -> int:
    given = _one_of(args.content, args.content_flag, "content")
    if given is None:
        return EXIT_USAGE
    # From stdin, the line end that `echo` adds is not part of the memory.
    content = sys.stdin.read().rstrip("\r\n") if given == "-" else given
    body: dict[str, Any] = {"owner": args.owner, "content": content, "type": args.type}
    for field in ("key", "session", "expires_at"):
        if getattr(args, field) is not None:
            body[field] = getattr(args, field)
    if args.metadata is not None:
        try:
            body["metadata"] = json.loads(args.metadata)
        except ValueError as exc:
            print(f"memtap: --metadata is not JSON: {exc}", file=sys.stderr)
            return EXIT_USAGE

    async def action(client: AdminClient) -> int:
        memory = await client.request("POST", "/api/memories", body=body)
        if args.json:
            print_json(memory)
        else:
            print(memory["id"])
        return EXIT_OK

    return run_api_command(action, args)


def _delete(args: argparse.Namespace) -> int:
    async def action(client: AdminClient) -> int:
        results = []
        for memory_id in args.ids:
            await client.request("DELETE", f"/api/memories/{segment(memory_id)}")
            results.append(memory_id)
            if not args.json:
                print(f"deleted {memory_id}")
        if args.json:
            print_json({"deleted": results})
        return EXIT_OK

    return run_api_command(action, args)


def segment(value: str) -> str:
    # Path parameters are quoted completely: an id or owner can never add path segments.
    return quote(value, safe="")


def _export(args: argparse.Namespace) -> int:
    owner = _one_of(args.owner, args.owner_flag, "owner")
    if owner is None:
        return EXIT_USAGE

    async def action(client: AdminClient) -> int:
        path = f"/api/owners/{segment(owner)}/export"
        if args.episodes:
            path += "?episodes=true"
        if not args.output:
            async for line in client.stream_lines(path):
                sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
            return EXIT_OK
        # Write next to the target and rename at the end: an interrupted export never leaves
        # a file that looks complete.
        target = Path(args.output)
        partial = target.with_name(target.name + ".partial")
        count = 0
        try:
            with partial.open("wb") as out:
                async for line in client.stream_lines(path):
                    out.write(line)
                    count += 1
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        what = "lines (memories, then episodes)" if args.episodes else "memories"
        print(f"exported {count} {what} to {args.output}", file=sys.stderr)
        return EXIT_OK

    return run_api_command(action, args)


def _import(args: argparse.Namespace) -> int:
    if args.file == "-":
        if (
            sys.stdin.isatty()
        ):  # no file and nothing piped in: say so instead of waiting
            print("memtap: give a FILE or pipe JSON lines into stdin", file=sys.stderr)
            return EXIT_USAGE
        data = sys.stdin.buffer.read()
        source: IO[bytes] = io.BytesIO(data)
        size = len(data)
    else:
        path = Path(args.file)
        if not path.is_file():
            print(f"memtap: no such file: {args.file}", file=sys.stderr)
            return EXIT_USAGE
        source, size = path.open("rb"), path.stat().st_size

    async def action(client: AdminClient) -> int:
        progress = Progress("import", size)
        with source:
            report = await client.upload_lines(
                "/api/import", file_chunks(source, progress), size
            )
        progress.finish()
        if args.json:
            print_json(report)
        else:
            print(
                f"created {report['created']}, updated {report['updated']}, skipped {report['skipped']}"
            )
            episodes = report.get("episodes")
            if episodes:
                print(
                    f"episodes: {episodes['created']} created, "
                    f"{episodes['unchanged']} unchanged"
                    + (
                        f", {episodes['vectors_pending']} windows still being embedded"
                        if episodes.get("vectors_pending")
                        else ""
                    )
                )
            for error in report.get("errors", [])[:20]:
                print(f"  {error}", file=sys.stderr)
        return EXIT_OK if not report.get("errors") else EXIT_API_ERROR

    return run_api_command(action, args)
