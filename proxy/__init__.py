"""memtap's proxy. At the top, the path of one request (server, routing, handler, flow,
pipeline, upstream, tee); in subpackages, the rest: connection modes, the client side of a
listener, addons, codecs, the admin sub-app and its client, the CLI, MCP and logging
(docs/ARCHITECTURE.md)."""

__version__ = "0.1.0"
