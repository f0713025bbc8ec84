"""Configuration errors: every problem carries the YAML path (or flag, or setting name) it is about."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ConfigIssue:
    """One problem: `path` is a YAML path (`upstreams[1].url`), a flag (`--listen`) or a file."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class ConfigError(Exception):
    """The configuration is invalid. `errors` lists every problem found, not only the first;
    `str()` gives one `path: message` line per problem."""

    def __init__(
        self, errors: Iterable[ConfigIssue], *, source: str | None = None
    ) -> None:
        self.errors: list[ConfigIssue] = list(errors)
        self.source = source
        super().__init__("\n".join(str(issue) for issue in self.errors))

    def to_json(self) -> list[dict[str, str]]:
        return [{"path": issue.path, "message": issue.message} for issue in self.errors]
