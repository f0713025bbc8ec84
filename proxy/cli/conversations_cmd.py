"""`memtap conversations import FILE`: past conversations in over the admin API.

FILE is JSON lines of messages or a ChatGPT export (`conversations.json`). An export is
sent one conversation a line, oldest first (read twice from disk: once to order, once to
send), so its size never matters to memtap or to this process. `--api-key` is turned into
its owner id here: the key never leaves this machine.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from memtap.engine.episodes.settle import WAIT_MAX_S as VECTOR_WAIT_MAX_S
from memtap.engine.history.chatgpt import conversation_time, split_array
from memtap.proxy.adminclient import AdminClient
from memtap.proxy.cli.client import (
    EXIT_API_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    Progress,
    add_target_arguments,
    file_chunks,
    print_json,
    run_api_command,
)
from memtap.proxy.headers import owner_id_for_key

PATH: Final = "/api/import/conversations"
CHUNK: Final = 256 * 1024
_ONE_LINE: Final = bytes.maketrans(b"\r\n", b"  ")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    conversations = sub.add_parser(
        "conversations", help="bring past conversations into memory (admin API)"
    )
    actions = conversations.add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )
    imp = actions.add_parser(
        "import",
        help="import a JSONL of turns or a ChatGPT conversations.json",
    )
    add_target_arguments(imp)
    imp.add_argument(
        "file", metavar="FILE", help="JSON lines of turns, or conversations.json"
    )
    who = imp.add_mutually_exclusive_group()
    who.add_argument(
        "--owner", help="owner of turns that name none (an export names none)"
    )
    who.add_argument(
        "--api-key",
        help="the API key whose owner the turns belong to (hashed here; never sent)",
    )
    imp.add_argument(
        "--wait",
        type=float,
        default=30.0,
        help="seconds without progress to wait for extraction before answering (default 30)",
    )
    imp.set_defaults(handler=_import)


@dataclass(frozen=True, slots=True)
class Upload:
    chunks: Iterator[bytes]
    length: int


def _first_byte(path: Path) -> bytes:
    with path.open("rb") as stream:
        while chunk := stream.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return stripped[:1]
    return b""


def _file_chunks(path: Path, progress: Progress) -> Iterator[bytes]:
    with path.open("rb") as stream:
        yield from file_chunks(stream, progress, CHUNK)


def _export_lines(path: Path, progress: Progress) -> Upload:
    """An export as one conversation a line, oldest first: a first pass notes where each
    conversation is and when it started, the second sends them in that order."""
    with path.open("rb") as stream:
        places = [
            (conversation_time(orjson.loads(raw)), offset, len(raw))
            for offset, raw in split_array(iter(lambda: stream.read(CHUNK), b""))
        ]
    places.sort()

    def chunks() -> Iterator[bytes]:
        with path.open("rb") as stream:
            for _, offset, size in places:
                stream.seek(offset)
                # One line a conversation: the server reads the body line by line, and an
                # indented export spreads each over many. A raw line break can only be
                # whitespace between JSON tokens (inside a string it is escaped), so a
                # space in its place keeps the JSON and its length.
                raw = stream.read(size).translate(_ONE_LINE) + b"\n"
                progress.advance(len(raw))
                yield raw

    return Upload(chunks(), sum(size + 1 for _, _, size in places))


def _import(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        print(f"memtap: no such file: {args.file}", file=sys.stderr)
        return EXIT_USAGE
    params: dict[str, Any] = {"wait": args.wait}
    if args.api_key:
        params["owner"] = owner_id_for_key(args.api_key.strip())
    elif args.owner:
        params["owner"] = args.owner
    is_export = _first_byte(path) == b"["
    size = path.stat().st_size
    progress = Progress("import", size, lines=True)
    try:
        upload = (
            _export_lines(path, progress)
            if is_export
            else Upload(_file_chunks(path, progress), size)
        )
    except ValueError as exc:
        print(f"memtap: {args.file} is not a ChatGPT export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    progress.total = max(upload.length, 1)

    async def action(client: AdminClient) -> int:
        # The answer comes after the turns' wait and the vectors' (at most two minutes).
        client.timeout_s = max(client.timeout_s, args.wait + 60 + VECTOR_WAIT_MAX_S)
        report = await client.upload_lines(
            PATH, upload.chunks, upload.length, params=params
        )
        progress.finish("sent, waiting for extraction")
        if args.json:
            print_json(report)
        else:
            print(
                f"imported {report['turns']} turns: {report['memories']} memories, "
                f"{report['episodes']} episodes, {report['skipped']} skipped, "
                f"{report.get('error_count', len(report['errors']))} errors"
                + (
                    f", {report['pending']} still extracting"
                    if report.get("pending")
                    else ""
                )
                + (
                    f", {report['vectors_pending']} windows still being embedded"
                    if report.get("vectors_pending")
                    else ""
                )
            )
            for error in report["errors"][:20]:
                print(f"  line {error['line']}: {error['message']}", file=sys.stderr)
        return EXIT_OK if not report["errors"] else EXIT_API_ERROR

    return run_api_command(action, args)
