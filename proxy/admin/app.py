"""The admin sub-app mounted at /_memtap: its own middlewares (auth, JSON errors) and routes."""

from __future__ import annotations

from aiohttp import web

from proxy.admin import health


def build_admin_app() -> web.Application:
    admin = web.Application()
    admin.add_routes(health.routes)
    return admin
