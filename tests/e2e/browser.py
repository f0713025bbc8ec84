"""A real Chromium (Debian's `chromium` + `chromium-driver`, never a downloaded browser)
driven by Selenium, for the Memory Studio tests.

Selenium's calls block, so a test runs its browser script in a thread
(`await asyncio.to_thread(...)`) while memtap serves on the test's event loop.
Screenshots go to build/screenshots/ (a test artifact, not committed).
"""

from __future__ import annotations

import base64
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
T = TypeVar("T")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

    HAVE_SELENIUM = True
except ModuleNotFoundError:  # the test extra is not installed
    HAVE_SELENIUM = False


def skip_reason() -> str | None:
    if not HAVE_SELENIUM:
        return "selenium is not installed (pip install -e '.[test]')"
    if CHROMIUM is None or CHROMEDRIVER is None:
        return "Chromium is not installed (apt-get install chromium chromium-driver; .ci/run does it)"
    return None


class Page:
    """The Studio in one browser tab, with waits that poll (the page is asynchronous)."""

    def __init__(self, driver: WebDriver, base: str) -> None:
        self.driver = driver
        self.base = base

    def open(self, tab: str = "memories") -> None:
        self.driver.get(f"{self.base}/_memtap/#{tab}")
        self.wait(lambda: self.find("#tab-memories"))

    def find(self, css: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return str(self.find(css).text)

    def type(self, css: str, value: str) -> None:
        """Replace the field's text as a user would (select all, delete, type): the page
        sees `input` events, also when the new value is empty."""
        element = self.find(css)
        element.send_keys(Keys.CONTROL, "a")
        element.send_keys(Keys.BACKSPACE)
        if value:
            element.send_keys(value)

    def click(self, css: str) -> None:
        self.find(css).click()

    def tab(self, name: str) -> None:
        self.click(f"#tab-{name.lower()}")
        self.wait(
            lambda: not self.find(f"#panel-{name.lower()}").get_attribute("hidden")
        )

    def wait(self, condition: Callable[[], T], timeout: float = 20.0) -> T:
        deadline = time.monotonic() + timeout
        last: Any = None
        while True:
            try:
                value = condition()
                if value:
                    return value
            except Exception as exc:  # noqa: BLE001 - not there yet: keep polling
                last = exc
            if time.monotonic() > deadline:
                status = self.all("#status")
                raise AssertionError(
                    f"timed out; status={status[0].text if status else None!r}; last={last!r}"
                )
            time.sleep(0.05)

    def wait_text(self, css: str, needle: str, timeout: float = 20.0) -> str:
        return self.wait(lambda: needle in self.text(css) and self.text(css), timeout)

    def screenshot(self, name: str, max_height: int = 2000) -> Path:
        """The whole page (up to `max_height` CSS pixels), not just the viewport."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})[
            "cssContentSize"
        ]
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {
                    "x": 0,
                    "y": 0,
                    # Captured beyond the viewport the scrollbar goes: full window width.
                    "width": max(
                        size["width"],
                        self.driver.execute_script("return window.innerWidth"),
                    ),
                    "height": min(size["height"], max_height),
                    "scale": 1,
                },
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def console_errors(self) -> list[str]:
        return [
            str(entry["message"])
            for entry in self.driver.get_log("browser")
            if entry["level"] == "SEVERE"
        ]


def chromium(width: int = 1360, height: int = 900) -> WebDriver:
    assert CHROMIUM is not None and CHROMEDRIVER is not None
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(
        service=Service(executable_path=CHROMEDRIVER), options=options
    )
