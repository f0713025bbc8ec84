"""Watch the config file by polling (stat + content hash) off the event loop.

Polling rather than inotify: it works the same on every OS and on bind-mounted files in
containers, and a 1 s stat() is free. Editors often replace a file in several steps
(truncate, write), so a change is only reported once two reads a moment apart agree:
a half-written file is never loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger("memtap.config")

SETTLE_S = 0.05
"""Delay between the two reads that must agree before a change is reported."""


@dataclass(frozen=True, slots=True)
class FileSnapshot:
    signature: tuple[int, int] | None
    """(mtime_ns, size); None when the file is missing."""
    raw: bytes | None = None
    digest: str | None = None


def stat_signature(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


def take_snapshot(path: str) -> FileSnapshot:
    """Blocking read of the file's signature, bytes and sha256."""
    signature = stat_signature(path)
    if signature is None:
        return FileSnapshot(None)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return FileSnapshot(None)
    return FileSnapshot(signature, raw, hashlib.sha256(raw).hexdigest())


OnChange = Callable[[FileSnapshot], Awaitable[None]]


class FileWatcher:
    """Calls `on_change(snapshot)` when the content of `path` changes (or the file goes
    missing). `digest` is the sha256 of the content already loaded, so a `touch` or an edit
    that restores the same bytes is not a change."""

    def __init__(self, path: str, on_change: OnChange, *, digest: str | None) -> None:
        self.path = path
        self._on_change = on_change
        self._digest = digest
        self._missing_reported = False
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, interval_s: float) -> None:
        if self.running:
            return
        self._task = asyncio.create_task(
            self._run(interval_s), name="memtap-config-watch"
        )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            try:
                await self.poll()
            except Exception:  # the watcher must survive any single failure
                log.exception(
                    "config.watch_failed", extra={"fields": {"path": self.path}}
                )

    async def poll(self) -> bool:
        """Check once; returns True when `on_change` was called."""
        # The content is hashed on every poll, not only when mtime/size moved: an editor can
        # rewrite a file with the same size within one mtime tick. A config file is a few KB.
        first = await asyncio.to_thread(take_snapshot, self.path)
        if first.signature is None:
            if self._missing_reported:
                return False
            self._missing_reported = True
            await self._on_change(first)
            return True
        self._missing_reported = False
        if first.digest == self._digest:
            return False
        await asyncio.sleep(SETTLE_S)
        second = await asyncio.to_thread(take_snapshot, self.path)
        if second.digest != first.digest:
            return False  # still being written: look again at the next poll
        self._digest = second.digest
        await self._on_change(second)
        return True
