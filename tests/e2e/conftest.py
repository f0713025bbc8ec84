"""The browser fixture of the Memory Studio tests (tests/e2e/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.e2e.browser import chromium, skip_reason

if TYPE_CHECKING:  # selenium may be missing: the tests then skip
    from selenium.webdriver.remote.webdriver import WebDriver


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()
