"""The docs/ reference names everything memtap has: every config key, runtime setting, CLI
command and admin endpoint, each in its topic file. The lists come from the code (the schema
dataclasses, the declared settings, the argparse tree, the admin sub-app's router), so adding
one without documenting it fails here, and so does documenting one that no longer exists.

Where each is expected:
- config keys: a row `| `memory.max_tokens` | ...` in docs/configuration.md's "Reference"
  tables (list items as `upstreams[].url`);
- runtime settings: a row `| `memory.max_tokens` | ...` in its "Runtime settings" section;
- CLI commands: a heading `` `memtap memories list` `` in docs/cli.md, whose section (or the
  "Commands" introduction, for the admin clients' common flags) names each of its options;
- admin endpoints: a row `| `GET /_memtap/api/memories` | ...` in docs/admin-api.md's
  "Endpoints" table.
Internal links between README.md and docs/ must resolve (file and heading anchor).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memtap.config.schema import Config
from memtap.config.settings import SETTINGS, settings_table
from memtap.proxy.admin.app import ADMIN_PREFIX, build_admin_app
from memtap.proxy.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
CONFIGURATION = DOCS / "configuration.md"
CLI = DOCS / "cli.md"
ADMIN_API = DOCS / "admin-api.md"

_TABLE_KEY = re.compile(r"^\| `([^`]+)` \|", re.MULTILINE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6}) (.*)$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


# -- reading the markdown --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Section:
    level: int
    title: str
    body: str
    """Everything under the heading up to the next heading of the same or a higher level."""


def sections(path: Path) -> list[Section]:
    """The headings of a markdown file with their bodies (headings inside code fences are
    text, not headings)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    headings: list[tuple[int, int, str]] = []  # (line index, level, title)
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            headings.append((index, len(match.group(1)), match.group(2).strip()))
    found: list[Section] = []
    for position, (start, level, title) in enumerate(headings):
        end = len(lines)
        for later, later_level, _ in headings[position + 1 :]:
            if later_level <= level:
                end = later
                break
        found.append(Section(level, title, "\n".join(lines[start + 1 : end])))
    return found


def section(path: Path, title_start: str) -> Section:
    matches = [s for s in sections(path) if s.title.startswith(title_start)]
    assert matches, f"{path.relative_to(REPO)} has no section titled {title_start!r}"
    return matches[0]


def table_keys(text: str) -> set[str]:
    """The backticked first cell of every table row."""
    return set(_TABLE_KEY.findall(text))


def github_anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as '-'."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


# -- what the code has -----------------------------------------------------------------------


def config_keys(cls: type = Config, prefix: str = "") -> Iterator[str]:
    """Dotted path of every leaf field of the frozen config dataclasses, recursively; fields
    of list items (`upstreams`) as `upstreams[].name`."""
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        path = f"{prefix}{field.name}"
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            yield from config_keys(hint, path + ".")
            continue
        if typing.get_origin(hint) is tuple:
            item = typing.get_args(hint)[0]
            if dataclasses.is_dataclass(item) and isinstance(item, type):
                yield from config_keys(item, path + "[].")
                continue
        yield path


def cli_commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """(command path, its parser) for every subcommand and sub-subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from cli_commands(sub, (*prefix, name))


def cli_options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """The spellings of each option of one command (`("-c", "--config")`), help excluded."""
    return [
        tuple(action.option_strings)
        for action in parser._actions
        if action.option_strings and not isinstance(action, argparse._HelpAction)
    ]


def named_in(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def admin_endpoints() -> set[str]:
    """`METHOD /_memtap/path` of every route the admin sub-app registers (HEAD is aiohttp's
    automatic companion of GET, not an endpoint of its own; the "*" routes are the JSON
    404/405 for paths no endpoint has)."""
    endpoints: set[str] = set()
    for route in build_admin_app().router.routes():
        if route.method in ("HEAD", "*") or route.resource is None:
            continue
        endpoints.add(f"{route.method} {ADMIN_PREFIX}{route.resource.canonical}")
    return endpoints


# -- the tests -------------------------------------------------------------------------------


def test_the_code_lists_are_not_empty() -> None:
    """Guards the derivations: a walk that found nothing would make every test below pass."""
    assert "memory.max_tokens" in set(config_keys())
    assert "upstreams[].url" in set(config_keys())
    assert "embedding.remote.url" in set(config_keys())
    assert ("memories", "list") in {path for path, _ in cli_commands(build_parser())}
    assert "GET /_memtap/api/memories" in admin_endpoints()
    assert len(SETTINGS) > 5


def test_every_config_key_is_in_the_configuration_reference() -> None:
    documented = table_keys(section(CONFIGURATION, "Reference").body)
    keys = set(config_keys())
    missing = sorted(keys - documented)
    assert not missing, (
        f"config keys missing from the tables of docs/configuration.md "
        f"('Reference: every key'): {missing}"
    )
    stale = sorted(documented - keys)
    assert not stale, f"docs/configuration.md documents keys the schema lacks: {stale}"


def test_every_runtime_setting_is_in_the_runtime_settings_table() -> None:
    documented = table_keys(section(CONFIGURATION, "Runtime settings").body)
    names = {spec.name for spec in SETTINGS}
    missing = sorted(names - documented)
    assert not missing, (
        f"runtime settings (config/settings.py) missing from the table of "
        f"docs/configuration.md's 'Runtime settings': {missing}"
    )
    stale = sorted(documented - names)
    assert not stale, f"'Runtime settings' lists names that are not settings: {stale}"


def test_the_runtime_settings_table_is_made_from_the_declarations() -> None:
    """Name, type, default, range and help of each setting, exactly as `config/schema.py`
    declares them (`python scripts/settings_table.py` rewrites the table)."""
    body = section(CONFIGURATION, "Runtime settings").body
    assert settings_table() in body, (
        "docs/configuration.md's runtime settings table differs from the declarations in "
        "config/schema.py: run `python scripts/settings_table.py`"
    )


def _command_sections() -> dict[tuple[str, ...], Section]:
    found: dict[tuple[str, ...], Section] = {}
    for s in sections(CLI):
        if match := re.fullmatch(r"`memtap ([a-z][a-z -]*)`", s.title):
            found[tuple(match.group(1).split())] = s
    return found


def test_every_cli_command_has_a_section_in_the_cli_reference() -> None:
    commands = {path for path, _ in cli_commands(build_parser())}
    documented = set(_command_sections())
    missing = sorted(" ".join(path) for path in commands - documented)
    assert not missing, (
        f"CLI commands without a heading `memtap ...` in docs/cli.md: {missing}"
    )
    stale = sorted(" ".join(path) for path in documented - commands)
    assert not stale, (
        f"docs/cli.md has sections for commands that do not exist: {stale}"
    )


@pytest.mark.parametrize(
    ("path", "parser"),
    [
        pytest.param(path, parser, id=" ".join(path))
        for path, parser in cli_commands(build_parser())
    ],
)
def test_every_cli_option_is_named_in_its_command_section(
    path: tuple[str, ...], parser: argparse.ArgumentParser
) -> None:
    command = _command_sections().get(path)
    if command is None:
        pytest.fail(f"no section for `memtap {' '.join(path)}` in docs/cli.md")
    common = section(CLI, "Commands").body.split("\n#", 1)[0]
    text = command.body + "\n" + common
    missing = sorted(
        " / ".join(spellings)
        for spellings in cli_options(parser)
        if not any(named_in(text, option) for option in spellings)
    )
    assert not missing, (
        f"options of `memtap {' '.join(path)}` not named in its docs/cli.md section: {missing}"
    )


def test_every_admin_endpoint_is_in_the_endpoints_table() -> None:
    documented = {
        key
        for key in table_keys(section(ADMIN_API, "Endpoints").body)
        if re.fullmatch(r"(GET|POST|PUT|PATCH|DELETE) /\S*", key)
    }
    endpoints = admin_endpoints()
    missing = sorted(endpoints - documented)
    assert not missing, (
        f"admin endpoints missing from the 'Endpoints' table of docs/admin-api.md "
        f"(as `METHOD /_memtap/path`): {missing}"
    )
    stale = sorted(documented - endpoints)
    assert not stale, f"docs/admin-api.md lists endpoints the admin app lacks: {stale}"


def test_links_between_readme_and_docs_resolve() -> None:
    pages = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
    broken: list[str] = []
    for page in pages:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            destination = (page.parent / file_part) if file_part else page
            if not destination.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif anchor and destination.suffix == ".md":
                anchors = {github_anchor(s.title) for s in sections(destination)}
                if anchor not in anchors:
                    broken.append(
                        f"{page.relative_to(REPO)}: {target} (no such heading)"
                    )
    assert not broken, "broken links:\n" + "\n".join(broken)
