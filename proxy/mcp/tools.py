"""The memory tools `memtap mcp` offers, each one admin API call (or two) away.

Scoping is the point of this module: an MCP server is started for one owner (`--owner`, or
`--api-key-env` naming the variable that holds the key the app sends), and every tool works
inside that owner only: searches pass the owner and an explicit scope (never `global`, even
when the config says so), lists filter by it, and a memory id of another owner is answered
"not found", exactly like an id that does not exist. `--any-owner` (operators) adds a
required `owner` argument to every tool instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from memtap.engine.types import Memory
from memtap.proxy import __version__
from memtap.proxy.adminclient import AdminClient, ApiError, Unreachable
from memtap.proxy.mcp.protocol import McpSession, Tool, ToolError, ToolResult
from memtap.proxy.owners import is_owner_id

INSTRUCTIONS = (
    "memtap remembers facts about the user across sessions and adds the relevant ones to "
    "LLM requests that go through it. Use memory_search before answering questions about "
    "the user's preferences, setup or past decisions; memory_add when the user states "
    "something worth keeping; memory_update or memory_delete when they correct or "
    "retract something."
)

MEMORY_TYPES = ("factual", "episodic", "procedural", "semantic")


def valid_owner(owner: str) -> bool:
    """What the admin API accepts as an owner id (never empty)."""
    return is_owner_id(owner)


STRATEGIES = ("hybrid", "semantic", "keyword", "recent")


@dataclass(frozen=True, slots=True)
class OwnerScope:
    owner: str | None
    """None: any owner (`--any-owner`); each tool then takes an `owner` argument."""
    session: str | None = None
    """Default `session` of searches, lists and new memories."""


def _string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


_ID = _string(
    'memory id (from memory_list, or a memory_search result of kind "fact": a result of '
    'kind "episode" is what the user said, not a memory these tools change)'
)
_SESSION = _string(
    "session id (X-Memtap-Session of the app); default: the server's --session"
)
_TYPE = _string("kind of memory", enum=list(MEMORY_TYPES))
_KEY = _string(
    "subject key: a new memory with the same key replaces the older one "
    "(e.g. 'preferred_database')"
)
_METADATA = {"type": "object", "description": "free-form JSON metadata"}
_EXPIRES = _string("ISO 8601 UTC time after which the memory is ignored")


class MemoryTools:
    def __init__(self, api: AdminClient, scope: OwnerScope) -> None:
        self.api = api
        self.scope = scope

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "memory_search",
                "Search memories",
                "Find what memtap remembers about the user that is relevant to a question, "
                "ranked as memtap ranks what it injects into requests (keyword and "
                "semantic, newer facts first): facts (kind fact) and what the user said "
                "(kind episode, quoted as said).",
                self._schema(
                    {
                        "query": _string("what to look for, in plain words"),
                        "limit": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 50,
                            "description": "at most this many memories (default 8)",
                        },
                        "session": _SESSION,
                        "strategy": _string(
                            "ranking; default: the server's memory.strategy",
                            enum=list(STRATEGIES),
                        ),
                    },
                    ["query"],
                ),
                self.search,
            ),
            Tool(
                "memory_list",
                "List memories",
                "List stored memories, newest first, optionally filtered by words, type "
                "or session.",
                self._schema(
                    {
                        "query": _string("only memories containing all these words"),
                        "type": _TYPE,
                        "session": _SESSION,
                        "limit": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 100,
                            "description": "page size (default 20)",
                        },
                        "offset": {"type": "integer", "minimum": 0},
                        "include_superseded": {
                            "type": "boolean",
                            "description": "also list facts a newer one replaced",
                        },
                    },
                    [],
                ),
                self.listing,
            ),
            Tool(
                "memory_get",
                "Get a memory",
                "One memory by id, with its metadata and timestamps.",
                self._schema({"id": _ID}, ["id"]),
                self.get,
            ),
            Tool(
                "memory_add",
                "Remember something",
                "Store a fact, preference or decision about the user so that later "
                "requests (through memtap) get it. Write it as a short third-person "
                "statement ('Prefers Postgres for side projects').",
                self._schema(
                    {
                        "content": _string("the memory, one statement"),
                        "type": _TYPE,
                        "key": _KEY,
                        "session": _SESSION,
                        "metadata": _METADATA,
                        "expires_at": _EXPIRES,
                    },
                    ["content"],
                ),
                self.add,
                read_only=False,
            ),
            Tool(
                "memory_update",
                "Correct a memory",
                "Change a memory's text or fields (the fields not given stay as they are).",
                self._schema(
                    {
                        "id": _ID,
                        "content": _string("new text"),
                        "type": _TYPE,
                        "key": _KEY,
                        "session": _string("move it to this session"),
                        "metadata": _METADATA,
                        "expires_at": _EXPIRES,
                    },
                    ["id"],
                ),
                self.update,
                read_only=False,
            ),
            Tool(
                "memory_delete",
                "Forget a memory",
                "Delete one memory for good.",
                self._schema({"id": _ID}, ["id"]),
                self.delete,
                read_only=False,
                destructive=True,
            ),
        ]

    def _schema(
        self, properties: dict[str, Any], required: list[str]
    ) -> dict[str, Any]:
        if self.scope.owner is None:
            properties = {
                "owner": _string("owner id (sha256 of the API key, 24 hex digits)"),
                **properties,
            }
            required = ["owner", *required]
        return {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }

    # -- tools ---------------------------------------------------------------------------
    async def search(self, args: dict[str, Any]) -> ToolResult:
        owner, session = self._owner(args), self._session(args)
        body: dict[str, Any] = {
            "owner": owner,
            "query": args["query"],
            "limit": args.get("limit") or 8,
            # Never the configured scope as is: `global` would reach other owners.
            "scope": "session" if session else "owner",
        }
        if session:
            body["session"] = session
        if args.get("strategy"):
            body["strategy"] = args["strategy"]
        found = await self._call("POST", "/api/retrieve-preview", body=body)
        results = [
            {
                k: hit.get(k)
                for k in (
                    "id",
                    "kind",
                    "content",
                    "score",
                    "tier",
                    "type",
                    "key",
                    "session",
                    "updated_at",
                )
            }
            for hit in found.get("results", [])
        ]
        if not results:
            return ToolResult(f"No memory matches {args['query']!r}.", {"results": []})
        heading = (
            f"{len(results)} memories for {args['query']!r}, in the order memtap "
            "would inject them:"
        )
        lines = [heading]
        lines += [
            f"- {'(said) ' if hit['kind'] == 'episode' else ''}{hit['content']}  "
            f"[id {hit['id']}, {hit['kind'] or 'fact'}, {hit['tier']} score "
            f"{hit['score']}, updated {str(hit['updated_at'])[:10]}]"
            for hit in results
        ]
        return ToolResult("\n".join(lines), {"results": results})

    async def listing(self, args: dict[str, Any]) -> ToolResult:
        offset = int(args.get("offset") or 0)
        params: dict[str, Any] = {
            "owner": self._owner(args),
            "session": self._session(args),
            "type": args.get("type"),
            "q": args.get("query"),
            "limit": args.get("limit") or 20,
            "offset": offset,
            "include_superseded": args.get("include_superseded") or None,
        }
        page = await self._call("GET", "/api/memories", params=params)
        items = [_memory(m) for m in page.get("items", [])]
        total = int(page.get("total", len(items)))
        if not items:
            return ToolResult(
                f"No memories (total {total}).", {"items": [], "total": total}
            )
        lines = [f"Memories {offset + 1}-{offset + len(items)} of {total}:"]
        lines += [
            f"- {m['content']}  [id {m['id']}, {m['type']}, updated {str(m['updated_at'])[:10]}]"
            for m in items
        ]
        return ToolResult("\n".join(lines), {"items": items, "total": total})

    async def get(self, args: dict[str, Any]) -> ToolResult:
        memory = await self._own_memory(args)
        return ToolResult(_describe(memory), {"memory": memory})

    async def add(self, args: dict[str, Any]) -> ToolResult:
        body = _given(args, "content", "type", "key", "metadata", "expires_at")
        body["owner"] = self._owner(args)
        session = self._session(args)
        if session:
            body["session"] = session
        memory = _memory(await self._call("POST", "/api/memories", body=body))
        return ToolResult(
            f"Remembered: {memory['content']}  [id {memory['id']}]", {"memory": memory}
        )

    async def update(self, args: dict[str, Any]) -> ToolResult:
        current = await self._own_memory(args)
        patch = _given(
            args, "content", "type", "key", "session", "metadata", "expires_at"
        )
        if not patch:
            raise ToolError(
                "nothing to change: give content, type, key, session, metadata or "
                "expires_at"
            )
        memory = _memory(
            await self._call(
                "PUT", f"/api/memories/{quote(current['id'], safe='')}", body=patch
            )
        )
        return ToolResult(f"Updated: {_describe(memory)}", {"memory": memory})

    async def delete(self, args: dict[str, Any]) -> ToolResult:
        current = await self._own_memory(args)
        await self._call("DELETE", f"/api/memories/{quote(current['id'], safe='')}")
        return ToolResult(
            f"Forgot: {current['content']}  [id {current['id']}]",
            {"deleted": current["id"]},
        )

    # -- helpers -------------------------------------------------------------------------
    def _owner(self, args: Mapping[str, Any]) -> str:
        owner = self.scope.owner if self.scope.owner is not None else args.get("owner")
        # Never empty: the admin API reads an empty owner as "every owner".
        if not isinstance(owner, str) or not valid_owner(owner):
            raise ToolError(f"not an owner id: {owner!r}")
        return owner

    def _session(self, args: Mapping[str, Any]) -> str | None:
        session = args.get("session")
        return str(session) if session else self.scope.session

    async def _own_memory(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The memory `args["id"]` if it belongs to the owner; another owner's memory is
        "not found", like a missing one, so ids reveal nothing across owners."""
        memory_id = str(args["id"])
        missing = ToolError(f"memory not found: {memory_id}")
        try:
            memory = await self.api.request(
                "GET", f"/api/memories/{quote(memory_id, safe='')}"
            )
        except ApiError as exc:
            if exc.status in (400, 404):
                raise missing from None
            raise _tool_error(exc) from None
        except Unreachable as exc:
            raise ToolError(str(exc)) from None
        if not isinstance(memory, dict) or memory.get("owner") != self._owner(args):
            raise missing
        return _memory(memory)

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        try:
            return await self.api.request(method, path, params=params, body=body)
        except ApiError as exc:
            raise _tool_error(exc) from None
        except Unreachable as exc:
            raise ToolError(str(exc)) from None


def _given(args: Mapping[str, Any], *names: str) -> dict[str, Any]:
    """The arguments among `names` that the call gave (not null)."""
    return {k: args[k] for k in names if args.get(k) is not None}


def _tool_error(exc: ApiError) -> ToolError:
    return ToolError(f"memtap refused: {exc.message} ({exc.code}, HTTP {exc.status})")


_SHOWN = tuple(
    f.name
    for f in dataclasses.fields(Memory)
    if f.name not in ("superseded_by", "valid_to")
)
"""What a tool shows of a memory: the admin API's memory object without the history links."""


def _memory(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {k: raw.get(k) for k in _SHOWN}


def _describe(memory: Mapping[str, Any]) -> str:
    parts = [f"{memory['content']}", f"id {memory['id']}", f"type {memory['type']}"]
    for name in ("key", "session", "expires_at"):
        if memory.get(name):
            parts.append(f"{name} {memory[name]}")
    parts.append(f"updated {memory['updated_at']}")
    return f"{parts[0]}  [{', '.join(parts[1:])}]"


def memory_session(tools: MemoryTools) -> McpSession:
    """An MCP session serving these tools (one per stdio process, one per HTTP request)."""
    return McpSession(tools.tools(), "memtap", __version__, instructions=INSTRUCTIONS)
