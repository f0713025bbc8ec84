"""`admin.listen`: serve the admin sub-app on its own address instead of the proxy's.

The server calls `start_admin_listener(runtime, host, port)` once the engine is open (stored
settings overrides are re-applied here) and `await runner.cleanup()` on shutdown. Paths stay the same (`/_memtap/...`), so clients and the
CLI only change the base URL.
"""

from __future__ import annotations

import logging

from aiohttp import web

from memtap.proxy.admin.app import admin_started, build_admin_app
from memtap.proxy.adminclient import ADMIN_PREFIX
from memtap.proxy.appkeys import RUNTIME, Runtime

log = logging.getLogger("memtap.admin")


async def start_admin_listener(runtime: Runtime, host: str, port: int) -> web.AppRunner:
    root = web.Application()
    root[RUNTIME] = runtime
    root.add_subapp(ADMIN_PREFIX, build_admin_app())
    # handler_cancellation: a client that goes away stops its request's work (an MCP batch,
    # an export), as on the proxy listener.
    runner = web.AppRunner(
        root,
        access_log=None,
        handle_signals=False,
        handler_cancellation=True,
        auto_decompress=False,  # as on the proxy listener: the admin refuses encoded bodies
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound = runner.addresses[0] if runner.addresses else (host, port)
    where = f"{bound[0]}:{bound[1]}"
    log.info("admin.listening", extra={"fields": {"listen": where}})
    await admin_started(runtime, f"admin.listen {where}")
    return runner
