"""Runtime settings overrides (admin `PUT /_memtap/api/settings`): name -> JSON value."""

from __future__ import annotations

import json
from typing import Any

from memtap.engine.sqlite.database import Database

Conn = Any


def load_all(conn: Conn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in conn.execute(
        "SELECT name, value FROM settings_overrides ORDER BY name"
    ):
        try:
            out[name] = json.loads(value)
        except ValueError:
            continue
    return out


def save(conn: Conn, name: str, value: Any, now: str) -> None:
    conn.execute(
        "INSERT INTO settings_overrides(name, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        (name, json.dumps(value, ensure_ascii=False), now),
    )


def delete(conn: Conn, name: str) -> bool:
    return (
        int(
            conn.execute(
                "DELETE FROM settings_overrides WHERE name = ?", (name,)
            ).rowcount
        )
        > 0
    )


class SqliteSettings:
    """`SettingsStore` over the local SQLite file."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def load_all(self) -> dict[str, Any]:
        return await self.db.read(load_all)

    async def save(self, name: str, value: Any, now: str) -> None:
        await self.db.write(lambda conn: save(conn, name, value, now))

    async def delete(self, name: str) -> bool:
        return await self.db.write(lambda conn: delete(conn, name))
