"""Semantic checks on a typed `Config`: what the type hints cannot say. Each check reports
the dotted YAML path.

Ranges are declared on the schema's fields (`config/declare.py`) and checked from there
(`declared_ranges`); the checks here are the rest: URLs, HOST:PORT, uniqueness, files that
must exist, one key that depends on another."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from memtap.config.declare import declared_ranges
from memtap.config.errors import ConfigIssue
from memtap.config.hostpatterns import intercept_pattern_error
from memtap.config.htpasswd import (
    HtpasswdError,
    is_file_spec,
    parse_inline,
    read_htpasswd,
)
from memtap.config.schema import Config

_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")


def parse_host_port(text: str) -> tuple[str, int]:
    """Split `HOST:PORT` (`[v6]:PORT` for IPv6). Raises ValueError with a user-facing message."""
    if text.startswith("["):
        host, sep, port_text = text[1:].partition("]:")
        if not sep:
            raise ValueError("must be HOST:PORT (IPv6 as [::1]:8080)")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"{host!r} is not an IPv6 address") from None
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep or not host:
            raise ValueError("must be HOST:PORT, e.g. 127.0.0.1:8080")
        if ":" in host:
            raise ValueError("IPv6 addresses must be in brackets, e.g. [::1]:8080")
        if not _HOSTNAME.fullmatch(host):
            raise ValueError(f"{host!r} is not a host name or address")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError("port must be a number from 0 to 65535")
    return host, int(port_text)


def url_problem(url: str) -> str | None:
    """None when `url` is an absolute http(s) URL with a host, else the message to report."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises on a non-numeric or out-of-range port
    except ValueError:
        return "not a URL"
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or any(c.isspace() for c in url)
    ):
        return "not a URL"
    return None


Check = Callable[[Config], Iterator[ConfigIssue]]


def _listen(config: Config) -> Iterator[ConfigIssue]:
    for path, value in (
        ("listen", config.listen),
        ("admin.listen", config.admin.listen),
    ):
        if value is None:
            continue
        try:
            parse_host_port(value)
        except ValueError as exc:
            yield ConfigIssue(path, str(exc))


def _paths(config: Config) -> Iterator[ConfigIssue]:
    if not config.data_dir.strip():
        yield ConfigIssue("data_dir", "must not be empty")
    files = [
        (f"upstreams[{i}].ca_file", u.ca_file) for i, u in enumerate(config.upstreams)
    ]
    files.append(("intercept.upstream_ca_file", config.intercept.upstream_ca_file))
    for path, value in files:
        if value is not None and not os.path.isfile(value):
            yield ConfigIssue(path, f"file not found: {value}")


def _upstreams(config: Config) -> Iterator[ConfigIssue]:
    names: dict[str, int] = {}
    prefixes: dict[str, int] = {}
    for i, upstream in enumerate(config.upstreams):
        base = f"upstreams[{i}]"
        if not upstream.name.strip():
            yield ConfigIssue(f"{base}.name", "must not be empty")
        elif upstream.name in names:
            yield ConfigIssue(
                f"{base}.name",
                f"duplicate name {upstream.name!r} (also upstreams[{names[upstream.name]}])",
            )
        else:
            names[upstream.name] = i
        problem = url_problem(upstream.url)
        if problem:
            yield ConfigIssue(f"{base}.url", problem)
        if not upstream.prefix.startswith("/"):
            yield ConfigIssue(f"{base}.prefix", 'must start with "/"')
        else:
            normalized = upstream.prefix.rstrip("/") or "/"
            if normalized in prefixes:
                yield ConfigIssue(
                    f"{base}.prefix",
                    f"duplicate prefix {upstream.prefix!r} (also upstreams[{prefixes[normalized]}])",
                )
            else:
                prefixes[normalized] = i


def _intercept(config: Config) -> Iterator[ConfigIssue]:
    for i, host in enumerate(config.intercept.hosts):
        problem = intercept_pattern_error(host)
        if problem is not None:
            yield ConfigIssue(f"intercept.hosts[{i}]", problem)
    yield from _proxy_auth(config.intercept.proxy_auth)
    for i, entry in enumerate(config.intercept.allow):
        problem = allow_entry_error(entry)
        if problem is not None:
            yield ConfigIssue(f"intercept.allow[{i}]", problem)


def allow_entry_error(entry: str) -> str | None:
    """None when `entry` is a valid `intercept.allow` item: an IP network in CIDR notation
    (`10.0.0.0/8`, `fd00::/8`, a single address) or a host pattern as in `intercept.hosts`."""
    text = entry.strip()
    try:
        ipaddress.ip_network(text, strict=False)
        return None
    except ValueError:
        pass
    if "/" in text:
        return f"{text!r} is not an IP network (write 10.0.0.0/8 or fd00::/8)"
    return intercept_pattern_error(text)


def _proxy_auth(spec: str | None) -> Iterator[ConfigIssue]:
    # Messages never quote the value: it holds a password.
    if spec is None:
        return
    path = "intercept.proxy_auth"
    try:
        if not is_file_spec(spec):
            parse_inline(spec)
            return
        read_htpasswd(spec[1:])
    except HtpasswdError as exc:
        where = f"{spec[1:]}: " if is_file_spec(spec) else ""
        yield ConfigIssue(path, f"{where}{exc}")
    except OSError as exc:
        yield ConfigIssue(path, f"cannot read {spec[1:]}: {exc.strerror or exc}")


def _memory(config: Config) -> Iterator[ConfigIssue]:
    memory = config.memory
    if len(set(memory.extract_from)) != len(memory.extract_from):
        yield ConfigIssue("memory.extract_from", "lists a role twice")
    if len(set(memory.user_from)) != len(memory.user_from):
        yield ConfigIssue("memory.user_from", "lists a source twice")
    if memory.users == "required" and not memory.user_from:
        yield ConfigIssue(
            "memory.user_from",
            "is empty: with memory.users: required no request could name an end user",
        )


def _embedding(config: Config) -> Iterator[ConfigIssue]:
    embedding = config.embedding
    remote = embedding.remote
    if remote.url is not None:
        problem = url_problem(remote.url)
        if problem:
            yield ConfigIssue("embedding.remote.url", problem)
    elif embedding.source == "remote":
        yield ConfigIssue(
            "embedding.remote.url", "required when embedding.source is remote"
        )


def _extraction(config: Config) -> Iterator[ConfigIssue]:
    model = config.extraction.model
    if model.url is not None:
        problem = url_problem(model.url)
        if problem:
            yield ConfigIssue("extraction.model.url", problem)
    elif config.extraction.kind == "model":
        yield ConfigIssue(
            "extraction.model.url", "required when extraction.kind is model"
        )
    if config.extraction.kind == "model" and not (model.model or "").strip():
        yield ConfigIssue(
            "extraction.model.model", "required when extraction.kind is model"
        )


def _vector_store(config: Config) -> Iterator[ConfigIssue]:
    qdrant = config.vector_store.qdrant
    if qdrant.url is not None:
        problem = url_problem(qdrant.url)
        if problem:
            yield ConfigIssue("vector_store.qdrant.url", problem)
    if not qdrant.collection.strip():
        yield ConfigIssue("vector_store.qdrant.collection", "must not be empty")


CHECKS: tuple[Check, ...] = (
    _listen,
    _paths,
    _upstreams,
    _intercept,
    _memory,
    _extraction,
    _embedding,
    _vector_store,
    declared_ranges,
)


def validate(config: Config) -> list[ConfigIssue]:
    """Every semantic problem of `config` (empty when valid)."""
    return [issue for check in CHECKS for issue in check(config)]
