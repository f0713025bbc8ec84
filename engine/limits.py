"""Limits every way into memory shares (proxy extraction, admin API, import, MCP, stores)."""

MAX_CONTENT_CHARS = 20_000
"""The longest memory content accepted; longer is refused as `InvalidInput` (field content)."""

MAX_TURN_TEXT_CHARS = 64 * 1024
"""The most of each side of a turn (the user's last message, the answer) that is captured and
queued: the tail, the part the extractor reads (`extraction.extract.MAX_INPUT_CHARS`). A
longer side is cut at its head and counted (`Turn.truncated_chars`), so a 1 GB answer costs
the proxy and the outbox no more than a 64 KiB one."""
