"""What an owner id may look like: one rule for the admin API's validation and the MCP tools.

Owners are sha256-derived hex ids in practice (`proxy/headers.py:owner_id_for_key`);
operators may also create readable ones ("alice"). No slashes or leading dots: an owner
never looks like a path.
"""

from __future__ import annotations

import re
from typing import Final

OWNER_ID_RE: Final = re.compile(r"[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]{0,255}")


def is_owner_id(text: str) -> bool:
    """True for a string the admin API accepts as an owner id (never empty)."""
    return OWNER_ID_RE.fullmatch(text) is not None
