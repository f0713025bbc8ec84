"""The Model Context Protocol over JSON-RPC 2.0, independent of the transport: the lifecycle
(`initialize`, `ping`) and the tools methods (`tools/list`, `tools/call`).

memtap speaks the handshake revisions (2024-11-05 to 2025-11-25): it answers `initialize`
with the client's version when it knows it, else with its newest, as the specification asks.
A tool's own failure (bad arguments, a memory that does not exist, memtap unreachable) is a
result with `isError: true`, which the model can read and correct; only protocol mistakes
(unknown method or tool, malformed message) are JSON-RPC errors.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("memtap.mcp")

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Newest first."""

MAX_BATCH = 50
"""Messages in one JSON-RPC batch (each may be an admin API call)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    """What the model reads."""
    data: dict[str, Any] | None = None
    """The same as JSON (`structuredContent`), for clients that use it."""
    is_error: bool = False


class ToolError(Exception):
    """Raised by a tool: becomes a result with `isError: true` and this message."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    run: Callable[[dict[str, Any]], Awaitable[ToolResult]]
    read_only: bool = True
    destructive: bool = False

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive,
                "idempotentHint": self.read_only,
                "openWorldHint": False,
            },
        }


@dataclass(slots=True)
class McpSession:
    """One client's session: feed it each decoded message, send back what it returns."""

    tools: Sequence[Tool]
    server_name: str
    server_version: str
    instructions: str = ""
    protocol_version: str | None = None
    """Agreed in `initialize`."""
    _by_name: dict[str, Tool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_name = {tool.name: tool for tool in self.tools}

    async def handle(
        self, message: Any
    ) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The response to `message` (None for notifications). A list is a JSON-RPC batch
        (2025-03-26 allowed them): each request in it gets its answer."""
        if isinstance(message, list):
            if not message:
                return _error(None, INVALID_REQUEST, "empty batch")
            if len(message) > MAX_BATCH:
                return _error(
                    None, INVALID_REQUEST, f"a batch holds at most {MAX_BATCH} messages"
                )
            answers = [await self._one(item) for item in message]
            kept = [a for a in answers if a is not None]
            return kept or None
        return await self._one(message)

    async def _one(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        request_id = message.get("id")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            request_id = None  # not an id that can be echoed back
        if message.get("jsonrpc") != "2.0":
            return _error(request_id, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        method = message.get("method")
        if method is None and ("result" in message or "error" in message):
            # A response from the client: memtap never sends requests, so nothing to match.
            return None
        if not isinstance(method, str):
            return _error(request_id, INVALID_REQUEST, "method must be a string")
        is_notification = "id" not in message
        params = message.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return (
                None
                if is_notification
                else _error(request_id, INVALID_PARAMS, "params must be an object")
            )
        handler = _METHODS.get(method)
        if handler is None:
            if is_notification:
                return None  # notifications/initialized, cancelled, ...: nothing to say
            return _error(request_id, METHOD_NOT_FOUND, f"method not found: {method}")
        if is_notification:
            return None
        try:
            return _result(request_id, await handler(self, params))
        except _RpcError as exc:
            return _error(request_id, exc.code, exc.message)
        except Exception:  # one bad request must not end the session
            # The details go to the log, not to the client.
            log.exception("mcp.internal_error", extra={"fields": {"method": method}})
            return _error(request_id, INTERNAL_ERROR, "internal error")

    # -- methods -----------------------------------------------------------------------
    async def _initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        wanted = params.get("protocolVersion")
        agreed = wanted if wanted in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        self.protocol_version = agreed
        result: dict[str, Any] = {
            "protocolVersion": agreed,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.server_name, "version": self.server_version},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    async def _ping(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    async def _list_tools(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"tools": [tool.describe() for tool in self.tools]}

    async def _call_tool(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        tool = self._by_name.get(name) if isinstance(name, str) else None
        if tool is None:
            raise _RpcError(INVALID_PARAMS, f"unknown tool: {name}")
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise _RpcError(INVALID_PARAMS, "arguments must be an object")
        try:
            check_arguments(tool.input_schema, arguments)
            result = await tool.run(arguments)
        except ToolError as exc:
            result = ToolResult(str(exc), is_error=True)
        body: dict[str, Any] = {
            "content": [{"type": "text", "text": result.text}],
            "isError": result.is_error,
        }
        if result.data is not None and self._structured():
            body["structuredContent"] = result.data
        return body

    def _structured(self) -> bool:
        # `structuredContent` arrived in 2025-06-18; older clients get the text only.
        return self.protocol_version in (None, "2025-06-18", "2025-11-25")


_METHODS: dict[
    str, Callable[[McpSession, Mapping[str, Any]], Awaitable[dict[str, Any]]]
] = {
    "initialize": McpSession._initialize,
    "ping": McpSession._ping,
    "tools/list": McpSession._list_tools,
    "tools/call": McpSession._call_tool,
}


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": message},
    }


def parse_error() -> dict[str, Any]:
    return _error(None, PARSE_ERROR, "parse error: not JSON")


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """The subset of JSON Schema the tools use: required keys, no unknown keys, each value's
    type, `enum`, and integer bounds. Raises `ToolError` naming the argument."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if arguments.get(name) is None:
            raise ToolError(f"missing argument: {name}")
    for name, value in arguments.items():
        spec = properties.get(name)
        if spec is None:
            raise ToolError(
                f"unknown argument: {name} (expected: {', '.join(properties)})"
            )
        if value is None:
            continue
        kinds = spec.get("type")
        allowed = [kinds] if isinstance(kinds, str) else list(kinds or [])
        python_types = tuple(t for k in allowed for t in _JSON_TYPES.get(k, ()))
        if python_types and (
            not isinstance(value, python_types)
            or (isinstance(value, bool) and bool not in python_types)
        ):
            raise ToolError(f"{name} must be of type {' or '.join(allowed)}")
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError(
                f"{name} must be one of {', '.join(map(str, spec['enum']))}"
            )
        if isinstance(value, int) and not isinstance(value, bool):
            if "minimum" in spec and value < spec["minimum"]:
                raise ToolError(f"{name} must be at least {spec['minimum']}")
            if "maximum" in spec and value > spec["maximum"]:
                raise ToolError(f"{name} must be at most {spec['maximum']}")
