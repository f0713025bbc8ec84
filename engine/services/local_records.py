"""What this replica keeps for itself in its local file besides the outbox: the runtime
settings overrides, and the proxy's request log with `admin.request_log_store: database`."""

from __future__ import annotations

from typing import Any

from memtap.engine.clock import now_iso
from memtap.engine.ports import RequestLogStore, SettingsStore


class LocalRecords:
    def __init__(self, settings: SettingsStore, request_log: RequestLogStore) -> None:
        self.settings = settings
        self.request_log = request_log

    async def load_overrides(self) -> dict[str, Any]:
        return await self.settings.load_all()

    async def save_override(self, name: str, value: Any) -> None:
        await self.settings.save(name, value, now_iso())

    async def delete_override(self, name: str) -> bool:
        return await self.settings.delete(name)

    async def save_request_record(
        self, request_id: str, owner: str | None, record: dict[str, Any], keep: int
    ) -> None:
        await self.request_log.save(request_id, owner, record, keep)

    async def load_request_records(self, limit: int) -> list[dict[str, Any]]:
        return await self.request_log.load(limit)
