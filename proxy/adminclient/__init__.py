"""The admin API client: the one way memtap's own tools call its admin API over HTTP.

`AdminClient` (`client.py`) is asynchronous (aiohttp). The CLI commands (`proxy/cli/`) run
it with `asyncio.run`; `memtap mcp` on stdio runs it in its own event loop; the MCP endpoint
inside memtap (`proxy/admin/mcp.py`) calls this same memtap through it over loopback, so the
tools get the same validation, auth and answers as any client. Errors are the same for
every caller (`errors.py`): `ApiError` (the API answered an error), `Unreachable` (no
answer) and its `Incomplete` (an answer cut short). Where the CLI finds the URL and token
(`--url`, env, config file) is `proxy/cli/client.py`.
"""

from memtap.proxy.adminclient.client import (
    ADMIN_PREFIX,
    AdminClient,
    Target,
    query_params,
)
from memtap.proxy.adminclient.errors import ApiError, Incomplete, Unreachable

__all__ = [
    "ADMIN_PREFIX",
    "AdminClient",
    "ApiError",
    "Incomplete",
    "Target",
    "Unreachable",
    "query_params",
]
