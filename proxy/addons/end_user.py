"""The end user of a request named in its body, and `memory.users: required`.

The handler already chose the owner from the key and the X-Memtap-User header
(`proxy/handler.py:new_flow`); a body field (`proxy/codecs/end_user.py`) can only be read
once the body is, so the inject addon calls `name_from_body` right after it parsed the
body and before it retrieves anything: the owner memory reads and writes is decided once,
here, for the rest of the request. The body itself is never changed because of it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

from memtap.proxy.codecs.end_user import body_end_user
from memtap.proxy.owners import chosen_end_user, end_user_owner, user_tag

if TYPE_CHECKING:
    from memtap.config.schema import MemoryConfig
    from memtap.engine.metrics import Metrics
    from memtap.engine.types import ApiFormat
    from memtap.proxy.flow import Flow

log = logging.getLogger("memtap.memory")

NO_END_USER: Final = "no_end_user"
"""The skipped reason (and metric label) of a request that names no end user under
`memory.users: required`."""


def name_from_body(
    flow: Flow, config: MemoryConfig, format: ApiFormat, body: Any
) -> None:
    """Make the body's end user the request's owner when `memory.user_from` reads the body
    and ranks it above whatever else named one (the header)."""
    key_owner = flow.key_owner_id
    if key_owner is None or "body" not in config.user_from:
        return
    named = body_end_user(format, body)
    chosen = chosen_end_user(
        config.user_from, flow.header_user_tag, user_tag(named) if named else None
    )
    if chosen is not None:
        flow.end_user = chosen[0]
        flow.owner_id = end_user_owner(key_owner, chosen[1])


def must_name_one(flow: Flow, config: MemoryConfig) -> bool:
    """True when memory must stay out of the request: `memory.users: required` and no
    end user named."""
    return config.users == "required" and flow.end_user is None


def skip_unnamed(flow: Flow, metrics: Metrics) -> None:
    """Keep memory out of a request that names no end user (required): counted, logged,
    and said in the request log; the request goes upstream unchanged."""
    flow.memory.skipped_reason = NO_END_USER
    metrics.memory_skipped.inc(NO_END_USER)
    log.info(
        "memory.skipped",
        extra={
            "fields": {
                "request_id": flow.request_id,
                "owner": flow.owner_id,
                "reason": NO_END_USER,
            }
        },
    )
