"""Onward TLS: the verifying client context for an upstream with an extra CA bundle.

Its own module because the routes (`proxy/routing.py`) and the forward front's warm-up
(`proxy/modes/forward.py`) both need it, and neither may import the other's layer.
"""

from __future__ import annotations

import ssl
from functools import lru_cache


@lru_cache(maxsize=32)
def ssl_context_for(ca_file: str) -> ssl.SSLContext:
    """System roots plus an extra CA bundle; cached because building a context reads files."""
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=ca_file)
    return context
