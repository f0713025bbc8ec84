"""Builds memtap's aiohttp application and runs it.

Lifecycle (every long-lived resource lives in a cleanup_ctx, so what starts is stopped):
  startup:  engine (fail-open) → upstream ClientSession → config file watcher (hot reload)
  serving:  `/_memtap/*` admin sub-app, everything else → `proxy.handler.handle`
  shutdown: stop accepting → in-flight requests finish within `server.shutdown_grace_s`
            (then they are cancelled) → watcher stopped → session closed → engine closed
            (drains the extraction queue to disk).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import web

from memtap.engine.factory import open_engine
from memtap.engine.metrics import Metrics
from memtap.proxy.addons import default_addons
from memtap.proxy.addons.access_log import log_connect
from memtap.proxy.addons.memory_switch import MemorySwitch
from memtap.proxy.admin import health as admin_health
from memtap.proxy.admin.app import mount_admin
from memtap.proxy.admin.settings import restore_overrides
from memtap.proxy.adminclient import ADMIN_PREFIX
from memtap.proxy.appkeys import RUNTIME, Runtime
from memtap.proxy.client_side.edges import ClientEdges
from memtap.proxy.handler import error_body, handle
from memtap.proxy.modes.access.gate import FORWARD_ACCESS, ForwardAccess
from memtap.proxy.modes.connect import ForwardProxy, ProtocolFactory
from memtap.proxy.modes.forward import forward_front
from memtap.proxy.modes.listener import ListenerSite, format_hostport, parse_listen
from memtap.proxy.pipeline import Addon, Pipeline
from memtap.proxy.request_log.store import RequestLogStore
from memtap.proxy.routing import addressed_elsewhere
from memtap.proxy.upstream import MAX_HEADER_BYTES, create_session

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

log = logging.getLogger("memtap.server")

AddonFactory = Callable[[Runtime], Sequence[Addon]]


# -- cleanup contexts ---------------------------------------------------------------------


async def _engine_ctx(app: web.Application) -> AsyncIterator[None]:
    runtime = app[RUNTIME]
    switch = MemorySwitch(runtime, _open_engine_at_run_time)
    if runtime.config.current.memory.enabled:
        await _open_engine(runtime)
    else:
        log.info("memory.disabled")
    request_log_store = RequestLogStore(runtime)
    await request_log_store.start()
    # Without an engine (or with memory off) the memory addons leave the per-request path;
    # a later `memory.enabled: true` opens the engine and brings it back.
    switch.settle()
    unsubscribe = runtime.config.subscribe(switch.on_config_change)
    yield
    unsubscribe()
    await switch.close()
    await request_log_store.stop()
    engine = runtime.engine
    if engine is not None:
        started = time.monotonic()
        try:
            await engine.close()
            elapsed_ms = round((time.monotonic() - started) * 1000, 1)
            log.info("memory.closed", extra={"fields": {"ms": elapsed_ms}})
        except Exception as exc:
            log.error(
                "memory.close_failed",
                extra={"fields": {"error": repr(exc)}},
                exc_info=exc,
            )


async def _open_engine(runtime: Runtime) -> None:
    """Fail-open: when the engine cannot start, memtap proxies without memory."""
    try:
        runtime.engine = await open_engine(
            runtime.config, runtime.metrics, events=runtime.engine_events
        )
    except Exception as exc:
        runtime.engine = None
        runtime.engine_error = f"{type(exc).__name__}: {exc}"
        log.error(
            "memory.unavailable",
            extra={"fields": {"error": runtime.engine_error}},
            exc_info=exc,
        )


async def _open_engine_at_run_time(runtime: Runtime) -> None:
    """`memory.enabled` turned on in a running process: open the engine, then apply the
    settings overrides stored in its database, as a start would have (they could not be read
    while there was no engine)."""
    await _open_engine(runtime)
    if runtime.engine is None:
        return
    try:
        await restore_overrides(runtime)
    except Exception as exc:  # noqa: BLE001 - memory works on the YAML values meanwhile
        log.warning(
            "settings.restore_failed",
            extra={"fields": {"error_type": type(exc).__name__, "error": str(exc)}},
        )


async def _upstream_ctx(app: web.Application) -> AsyncIterator[None]:
    runtime = app[RUNTIME]
    runtime.upstream_session = create_session()
    yield
    await runtime.upstream_session.close()


async def _config_watch_ctx(app: web.Application) -> AsyncIterator[None]:
    """Hot reload: the holder polls its file and swaps `holder.current` on a valid change."""
    holder = app[RUNTIME].config
    await holder.start_watching()
    yield
    await holder.stop_watching()


# -- the application ----------------------------------------------------------------------


async def _admin_elsewhere(request: web.Request) -> web.StreamResponse:
    if addressed_elsewhere(request):
        return await handle(request)  # the target host's path, not memtap's admin API
    # Liveness/readiness probes keep working on the proxy port (they carry no memory data).
    probe = _PROBES.get(request.match_info.get("tail", ""))
    if probe is not None and request.method in ("GET", "HEAD"):
        return await probe(request)
    body = error_body(
        "not_found",
        "the admin API listens on admin.listen, not on the proxy port",
        None,
    )
    return web.Response(status=404, body=body, content_type="application/json")


_PROBES: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {
    "/health": admin_health.health,
    "/readyz": admin_health.readyz,
}


def build_app(
    holder: ConfigHolder,
    metrics: Metrics | None = None,
    addons: AddonFactory = default_addons,
    *,
    watch_config: bool = True,
) -> web.Application:
    """The proxy application with its Runtime under `RUNTIME`. Nothing starts until a runner
    sets it up (cleanup_ctx). `watch_config=False` disables hot reload (in-process tests)."""
    runtime = Runtime(
        config=holder,
        metrics=metrics if metrics is not None else Metrics(),
        pipeline=Pipeline(()),
    )
    runtime.pipeline = Pipeline(addons(runtime))
    admin_here = not holder.current.admin.listen
    app = web.Application()
    app[RUNTIME] = runtime
    app[FORWARD_ACCESS] = ForwardAccess()  # access: forward-proxy auth + destinations
    app.cleanup_ctx.extend((_engine_ctx, _upstream_ctx))
    if watch_config:
        app.cleanup_ctx.append(_config_watch_ctx)
    if admin_here:
        mount_admin(app, handle)
    else:
        app.router.add_route("*", ADMIN_PREFIX + "{tail:(?s:(/.*)?)}", _admin_elsewhere)
    # (?s): a path may hold a newline (a decoded "%0A"); it is proxied like any other.
    app.router.add_route("*", "/{tail:(?s:.*)}", handle)
    return app


def _forward_front(
    runtime: Runtime, access: ForwardAccess
) -> Callable[[ProtocolFactory], ForwardProxy]:
    """The CONNECT front for the listener, reporting the CONNECTs it ends to the access log."""
    holder, metrics = runtime.config, runtime.metrics
    return lambda http: forward_front(
        http,
        lambda: holder.current,
        on_done=lambda done: log_connect(done, metrics),
        access=access,
    )


def _client_edges(runtime: Runtime) -> Callable[[web.Server], ClientEdges]:
    """The listener's client-side limits, read live from `server.client`."""
    holder, metrics = runtime.config, runtime.metrics
    return lambda server: ClientEdges(
        server, lambda: holder.current.server.client, metrics
    )


@dataclass(slots=True)
class RunningServer:
    """A started memtap: listening, engine open. `stop()` is the graceful shutdown."""

    runner: web.AppRunner
    site: ListenerSite
    runtime: Runtime
    host: str
    admin_runner: web.AppRunner | None = None

    @property
    def port(self) -> int:
        return self.site.port

    @property
    def base_url(self) -> str:
        return f"http://{format_hostport(self.host, self.port)}"

    async def stop(self) -> None:
        self.runtime.draining = True
        if self.admin_runner is not None:
            await self.admin_runner.cleanup()
        # Stops accepting, waits for in-flight requests (shutdown_timeout), then runs the
        # cleanup contexts in reverse: the engine closes after the last request finished.
        await self.runner.cleanup()


async def start_server(
    holder: ConfigHolder,
    *,
    listen: tuple[str, int] | None = None,
    metrics: Metrics | None = None,
    addons: AddonFactory = default_addons,
    watch_config: bool = True,
) -> RunningServer:
    """Build, set up and bind memtap (`listen` overrides `config.listen`, e.g. port 0 in tests)."""
    config = holder.current
    host, port = listen if listen is not None else parse_listen(config.listen)
    app = build_app(holder, metrics, addons, watch_config=watch_config)
    runner = web.AppRunner(
        app,
        handle_signals=False,
        access_log=None,
        handler_cancellation=True,  # a client that goes away cancels its upstream request
        # A compressed upload goes upstream as it was sent (aiohttp would decompress it and
        # the bytes relayed would no longer match their Content-Encoding and length);
        # memory reads it decompressed itself (proxy/codecs/request_encoding.py).
        auto_decompress=False,
        shutdown_timeout=config.server.shutdown_grace_s,
        max_line_size=MAX_HEADER_BYTES,
        max_field_size=MAX_HEADER_BYTES,
    )
    await runner.setup()
    runtime = app[RUNTIME]
    admin_runner: web.AppRunner | None = None
    try:
        site = ListenerSite(
            runner,
            host,
            port,
            front=_forward_front(runtime, app[FORWARD_ACCESS]),
            edges=_client_edges(runtime),
        )
        await site.start()
        if config.admin.listen:
            from memtap.proxy.admin.standalone import start_admin_listener

            admin_host, admin_port = parse_listen(config.admin.listen)
            admin_runner = await start_admin_listener(runtime, admin_host, admin_port)
    except BaseException:
        await runner.cleanup()
        raise
    log.info(
        "server.listening",
        extra={
            "fields": {
                "listen": format_hostport(host, site.port),
                "memory": runtime.engine is not None,
            }
        },
    )
    return RunningServer(
        runner=runner, site=site, runtime=runtime, host=host, admin_runner=admin_runner
    )


GC_YOUNG_THRESHOLD = 10_000
"""Container allocations between two young-generation collections (CPython's default: 700).
A proxied request allocates a few dozen that mostly die with it; at 700 the collector ran
every dozen requests, scanning what the requests in flight still hold."""


def settle_gc() -> None:
    """Once the server is up: what start-up built (modules, config, engine) goes to the
    permanent generation, so full collections stop walking it, and the young generation is
    collected less often. Garbage is collected first so that none of it is kept forever."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


async def serve(holder: ConfigHolder, announce: Callable[[str], None]) -> int:
    """Run until SIGTERM/SIGINT, then shut down gracefully. `announce(base_url)` is called once
    the port is bound. Returns the process exit code."""
    running = await start_server(holder)
    settle_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        announce(running.base_url)
        await stop.wait()
        grace = holder.current.server.shutdown_grace_s
        log.info("server.stopping", extra={"fields": {"grace_s": grace}})
        await running.stop()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    log.info("server.stopped")
    return 0
