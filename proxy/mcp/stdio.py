"""The stdio transport: one JSON-RPC message per line on stdin, answers one per line on
stdout (nothing else may reach stdout), requests served in order until stdin ends."""

from __future__ import annotations

import asyncio
import json
from typing import IO, Any

from memtap.proxy.mcp.protocol import McpSession, parse_error


async def serve_stdio(session: McpSession, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    while raw := await asyncio.to_thread(stdin.readline):
        line = raw.strip()
        if not line:
            continue
        message: Any
        try:
            message = json.loads(line)
        except (
            ValueError,
            RecursionError,
        ):  # RecursionError: nesting beyond the parser's depth
            _send(stdout, parse_error())
            continue
        answer = await session.handle(message)
        if answer is not None:
            _send(stdout, answer)


def _send(stdout: IO[bytes], answer: Any) -> None:
    # ensure_ascii keeps every line pure ASCII: no encoding question for any client.
    stdout.write(json.dumps(answer, separators=(",", ":")).encode("ascii") + b"\n")
    stdout.flush()
