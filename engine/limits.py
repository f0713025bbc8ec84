"""Limits every way into memory shares (proxy extraction, admin API, import, MCP, stores)."""

MAX_CONTENT_CHARS = 20_000
"""The longest memory content accepted; longer is refused as `InvalidInput` (field content)."""
