"""The Memory Studio's page and modules as served (no browser): the five tabs by name with
role="tab", every module served as JavaScript under the CSP, nothing that parses HTML from
data, no third-party origin. The behaviour in a real browser: tests/e2e/test_studio.py."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.admin import Admin

STATIC = Path(__file__).resolve().parents[2] / "proxy" / "admin" / "static"
TABS = ["Memories", "Playground", "Requests", "Engine", "Owners"]
# Ways to turn a string into markup: none may appear in the Studio's code.
HTML_SINKS = re.compile(
    r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|eval\(|new Function"
)


async def test_the_page_has_the_five_tabs(admin: Admin) -> None:
    page = await admin.call("GET", "/", token=None)
    html = page.raw.decode()
    found = re.findall(r'<button[^>]*role="tab"[^>]*>([^<]+)</button>', html)
    assert found == TABS
    assert '<script type="module" src="static/main.js"></script>' in html
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]


async def test_every_module_is_served_as_javascript_and_no_other_file(
    admin: Admin,
) -> None:
    served = {p.name for p in STATIC.iterdir() if p.suffix == ".js"}
    imported = set()
    for name in sorted(served):
        reply = await admin.call("GET", f"/static/{name}", token=None)
        assert reply.status == 200, name
        assert reply.headers["Content-Type"].startswith("text/javascript"), name
        assert "script-src 'self'" in reply.headers["Content-Security-Policy"]
        imported |= set(re.findall(r'from "\./([\w.]+)"', reply.raw.decode()))
    assert imported <= served and imported
    assert (await admin.call("GET", "/static/page.py", token=None)).status == 404


def test_no_module_turns_data_into_markup_or_loads_from_elsewhere() -> None:
    for path in sorted(STATIC.iterdir()):
        source = path.read_text()
        assert not HTML_SINKS.search(source), path.name
        # No CDN: every URL the page loads is relative to the admin sub-app.
        assert not re.search(
            r"""(src|href|from|import)\s*=?\s*["']https?://""", source
        ), path.name
