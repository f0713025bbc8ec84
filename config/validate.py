"""Semantic checks on a typed `Config`: what the type hints cannot say (URLs, HOST:PORT,
ranges, uniqueness, files that must exist). Each check reports the dotted YAML path."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

from memtap.config.errors import ConfigIssue
from memtap.config.hostpatterns import intercept_pattern_error
from memtap.config.htpasswd import (
    HtpasswdError,
    is_file_spec,
    parse_inline,
    read_htpasswd,
)
from memtap.config.schema import Config

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MAX_MEMORY_TOKENS = 16000
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
        yield from _positive(f"{base}.timeout_s", upstream.timeout_s)
        yield from _positive(f"{base}.connect_timeout_s", upstream.connect_timeout_s)


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
    if not 1 <= memory.max_tokens <= MAX_MEMORY_TOKENS:
        yield ConfigIssue("memory.max_tokens", f"must be from 1 to {MAX_MEMORY_TOKENS}")
    yield from _at_least("memory.top_k", memory.top_k, 1)
    yield from _at_least("memory.rrf_k", memory.rrf_k, 1)
    yield from _at_least("memory.max_items", memory.max_items, 1)
    yield from _at_least("memory.retrieval_timeout_ms", memory.retrieval_timeout_ms, 1)
    yield from _at_least(
        "memory.max_concurrent_retrievals", memory.max_concurrent_retrievals, 0
    )
    for path, days in (
        ("memory.retention_days", memory.retention_days),
        ("memory.summarize_after_days", memory.summarize_after_days),
    ):
        if days is not None and days < 1:
            yield ConfigIssue(path, "must be at least 1, or null for never")
    if len(set(memory.extract_from)) != len(memory.extract_from):
        yield ConfigIssue("memory.extract_from", "lists a role twice")
    if len(set(memory.user_from)) != len(memory.user_from):
        yield ConfigIssue("memory.user_from", "lists a source twice")
    if memory.users == "required" and not memory.user_from:
        yield ConfigIssue(
            "memory.user_from",
            "is empty: with memory.users: required no request could name an end user",
        )
    if memory.min_score < 0:
        yield ConfigIssue("memory.min_score", "must be 0 or more")
    if not -1.0 <= memory.min_similarity <= 1.0:
        yield ConfigIssue("memory.min_similarity", "must be from -1 to 1")
    if not 0.0 <= memory.vector_skip_coverage <= 1.0:
        yield ConfigIssue("memory.vector_skip_coverage", "must be from 0 to 1")
    yield from _positive("memory.sweep_interval_s", memory.sweep_interval_s)
    yield from _positive("memory.backfill_interval_s", memory.backfill_interval_s)
    if memory.outbox_max_rows < 1:
        yield ConfigIssue("memory.outbox_max_rows", "must be 1 or more")
    yield from _episodes(config)


def _episodes(config: Config) -> Iterator[ConfigIssue]:
    episodes = config.memory.episodes
    yield from _at_least("memory.episodes.max_per_owner", episodes.max_per_owner, 1)
    yield from _at_least("memory.episodes.max_snippets", episodes.max_snippets, 0)
    yield from _at_least("memory.episodes.snippet_tokens", episodes.snippet_tokens, 8)
    if episodes.retention_days is not None and episodes.retention_days < 1:
        yield ConfigIssue(
            "memory.episodes.retention_days",
            "must be at least 1, or null to follow memory.retention_days",
        )
    if not -1.0 <= episodes.min_similarity <= 1.0:
        yield ConfigIssue("memory.episodes.min_similarity", "must be from -1 to 1")


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
    if remote.dim is not None and remote.dim < 1:
        yield ConfigIssue(
            "embedding.remote.dim", "must be at least 1, or null to detect it"
        )
    yield from _positive("embedding.remote.timeout_s", remote.timeout_s)
    yield from _at_least("embedding.remote.batch_size", remote.batch_size, 1)
    yield from _at_least("embedding.cache_max", embedding.cache_max, 0)
    yield from _at_least("embedding.cache_ttl_ms", embedding.cache_ttl_ms, 0)
    yield from _at_least("embedding.timeout_ms", embedding.timeout_ms, 1)


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
    yield from _positive("extraction.model.timeout_s", model.timeout_s)
    for name, value, minimum in (
        ("calls_per_minute", model.calls_per_minute, 1),
        ("owner_calls_per_minute", model.owner_calls_per_minute, 1),
        ("daily_tokens", model.daily_tokens, 1),
        ("max_turns_per_call", model.max_turns_per_call, 1),
        ("max_turn_chars", model.max_turn_chars, 100),
        ("related_memories", model.related_memories, 0),
        ("max_output_tokens", model.max_output_tokens, 64),
        ("concurrency", model.concurrency, 1),
    ):
        yield from _at_least(f"extraction.model.{name}", value, minimum)
    if not 0.0 <= model.temperature <= 2.0:
        yield ConfigIssue("extraction.model.temperature", "must be from 0 to 2")


def _vector_store(config: Config) -> Iterator[ConfigIssue]:
    qdrant = config.vector_store.qdrant
    if qdrant.url is not None:
        problem = url_problem(qdrant.url)
        if problem:
            yield ConfigIssue("vector_store.qdrant.url", problem)
    if not qdrant.collection.strip():
        yield ConfigIssue("vector_store.qdrant.collection", "must not be empty")
    yield from _positive("vector_store.qdrant.timeout_s", qdrant.timeout_s)


def _log_and_server(config: Config) -> Iterator[ConfigIssue]:
    if config.log.level.lower() not in LOG_LEVELS:
        yield ConfigIssue("log.level", "must be one of " + ", ".join(LOG_LEVELS))
    yield from _at_least("admin.request_log_size", config.admin.request_log_size, 0)
    yield from _at_least("server.shutdown_grace_s", config.server.shutdown_grace_s, 0)
    yield from _at_least(
        "server.max_rewrite_body_bytes", config.server.max_rewrite_body_bytes, 0
    )
    client = config.server.client
    for name, seconds in (
        ("head_timeout_s", client.head_timeout_s),
        ("body_idle_timeout_s", client.body_idle_timeout_s),
        ("keepalive_timeout_s", client.keepalive_timeout_s),
        ("write_timeout_s", client.write_timeout_s),
    ):
        yield from _positive(f"server.client.{name}", seconds)
    yield from _at_least("server.client.max_connections", client.max_connections, 0)
    yield from _at_least(
        "server.client.max_connections_per_address",
        client.max_connections_per_address,
        0,
    )


def _positive(path: str, value: float) -> Iterator[ConfigIssue]:
    if value <= 0:
        yield ConfigIssue(path, "must be greater than 0")


def _at_least(path: str, value: float, minimum: int) -> Iterator[ConfigIssue]:
    if value < minimum:
        yield ConfigIssue(path, f"must be at least {minimum}")


CHECKS: tuple[Check, ...] = (
    _listen,
    _paths,
    _upstreams,
    _intercept,
    _memory,
    _extraction,
    _embedding,
    _vector_store,
    _log_and_server,
)


def validate(config: Config) -> list[ConfigIssue]:
    """Every semantic problem of `config` (empty when valid)."""
    return [issue for check in CHECKS for issue in check(config)]
