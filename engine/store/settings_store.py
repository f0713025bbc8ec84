"""Runtime settings overrides (admin `PUT /_memtap/api/settings`): name -> JSON value."""

from __future__ import annotations

import json
from typing import Any

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
