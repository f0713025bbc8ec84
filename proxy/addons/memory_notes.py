"""Log lines for a request whose memory was skipped or whose text memory had to alter.

Kept apart from the memory addon so its call sites stay one line each: what the operator
sees when memory silently did nothing used to be only `flow.memory.skipped_reason`.
"""

from __future__ import annotations

import logging

from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")


def log_skipped(flow: Flow, exc: BaseException) -> None:
    """Memory skipped because the request body could not be read (the request itself goes
    upstream untouched)."""
    log.info(
        "memory.skipped",
        extra={
            "fields": {
                "request_id": flow.request_id,
                "reason": flow.memory.skipped_reason,
                "error": str(exc)[:200],
            }
        },
    )


def log_surrogates_replaced(flow: Flow) -> None:
    """The user's text held lone surrogates: memory read it with U+FFFD in their place; the
    request went upstream with the text as sent (proxy/codecs/surrogates.py)."""
    log.info(
        "memory.surrogates_replaced",
        extra={"fields": {"request_id": flow.request_id}},
    )
