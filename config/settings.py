"""Runtime-overridable settings, declared once as data.

The admin API (`GET|PUT /_memtap/api/settings`, `DELETE /_memtap/api/settings/{name}`) lists
and changes exactly these; the engine persists overrides (name → JSON value) and they are
re-applied on top of the YAML file at start and after every reload. Values are converted and
validated exactly like the YAML file (same converter, same semantic checks), without `${VAR}`
expansion.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from memtap.config.convert import Issues, get_path, resolve_field, set_dotted, to_plain
from memtap.config.errors import ConfigError
from memtap.config.loader import check
from memtap.config.schema import Config

if TYPE_CHECKING:
    from memtap.config.holder import ConfigHolder

Source = Literal["default", "yaml", "override"]


@dataclass(frozen=True, slots=True)
class SettingSpec:
    name: str
    """Dotted config path, e.g. `memory.max_tokens`."""
    help: str


SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec(
        "memory.enabled", "Master switch: false makes memtap a pure pass-through proxy."
    ),
    SettingSpec(
        "memory.strategy",
        "How memories are ranked: recent | keyword | semantic | hybrid.",
    ),
    SettingSpec(
        "memory.scope", "Which memories a request may see: session | owner | global."
    ),
    SettingSpec(
        "memory.max_tokens", "Token budget of the injected memory block (1..16000)."
    ),
    SettingSpec(
        "memory.retention_days",
        "Delete memories older than this many days; null keeps them.",
    ),
    SettingSpec(
        "memory.extract_from",
        "Roles whose messages are mined for memories: [user], [user, assistant].",
    ),
    SettingSpec(
        "memory.placement",
        "Where memories go: after_prefix, prepend or last_user (with the last user turn).",
    ),
    SettingSpec(
        "memory.users",
        "End users behind one key: optional | required (a request naming none gets no "
        "memory).",
    ),
    SettingSpec(
        "memory.user_from",
        "Where a request names its end user, in order of precedence: [header, body] "
        "(X-Memtap-User; OpenAI safety_identifier / user, Anthropic metadata.user_id).",
    ),
    SettingSpec(
        "memory.rrf_k",
        "Reciprocal-rank-fusion constant k of the hybrid strategy (>= 1).",
    ),
    SettingSpec(
        "memory.top_k",
        "Candidates fetched from each retrieval tier before fusion (>= 1).",
    ),
    SettingSpec(
        "memory.min_score", "Relevance floor for keyword hits (bm25 relevance, >= 0)."
    ),
    SettingSpec("memory.min_similarity", "Cosine floor for vector hits (-1..1)."),
    SettingSpec("memory.max_items", "Most memories injected into one request (>= 1)."),
    SettingSpec(
        "memory.retrieval_timeout_ms",
        "Retrieval time limit; past it the request goes on without memory.",
    ),
    SettingSpec(
        "memory.max_concurrent_retrievals",
        "Retrievals that run at once; more wait their turn inside the time limit "
        "(>= 0; 0 = no limit).",
    ),
    SettingSpec(
        "memory.vector_skip_coverage",
        "Hybrid skips the query embedding when a top keyword hit holds this share of the "
        "question's topic words (0..1; 0 = never).",
    ),
    SettingSpec(
        "memory.summarize_after_days",
        "Compact memories older than this many days; null disables.",
    ),
    SettingSpec("memory.sweep_interval_s", "Seconds between retention sweeps (> 0)."),
    SettingSpec(
        "memory.backfill_interval_s",
        "Seconds between the vector backfill's checks for memories without a vector (> 0).",
    ),
    SettingSpec(
        "memory.outbox_max_rows",
        "Turns the extraction outbox holds at most; beyond it new turns are not kept (>= 1).",
    ),
    SettingSpec(
        "memory.episodes",
        "The whole episodes section as one object (keys not given take their defaults); "
        "prefer the memory.episodes.* settings for one value.",
    ),
    SettingSpec(
        "memory.episodes.enabled",
        "Keep what was said (episodes) and recall snippets of it beside facts.",
    ),
    SettingSpec(
        "memory.episodes.keep_assistant",
        "Also keep the assistant's side as episodes (the message a user turn answers and the reply).",
    ),
    SettingSpec(
        "memory.episodes.max_per_owner",
        "Episodes kept per owner; the oldest are evicted past it (>= 1).",
    ),
    SettingSpec(
        "memory.episodes.retention_days",
        "Delete episodes said longer ago than this; null follows memory.retention_days.",
    ),
    SettingSpec(
        "memory.episodes.min_similarity",
        "Cosine floor of an episode snippet's vector match (-1..1).",
    ),
    SettingSpec(
        "memory.episodes.max_snippets",
        "Most episode snippets injected into one request (>= 0).",
    ),
    SettingSpec(
        "memory.episodes.snippet_tokens",
        "Longest episode snippet in tokens, after trimming to the matched sentences (>= 8).",
    ),
    SettingSpec(
        "embedding.source", "Embedding model: auto | remote | static | onnx | none."
    ),
    SettingSpec(
        "embedding.query_projection",
        "Local model's query embeddings: auto (projected into the model's space while the "
        "model is busy with other queries) | always (always projected) | off (the model).",
    ),
    SettingSpec("log.level", "Log level: debug | info | warning | error | critical."),
)

SETTINGS_BY_NAME: Mapping[str, SettingSpec] = {spec.name: spec for spec in SETTINGS}


class SettingView(TypedDict):
    name: str
    value: Any
    default: Any
    source: Source
    help: str


def apply_overrides(config: Config, overrides: Mapping[str, Any]) -> Config:
    """`config` with each runtime override applied (`{"memory.max_tokens": 800}`).
    Raises ConfigError naming the setting for an unknown name or an invalid value; the
    checks are the YAML file's (`memory.max_tokens: must be from 1 to 16000`)."""
    issues = Issues()
    for name, value in overrides.items():
        if name not in SETTINGS_BY_NAME:
            issues.add(
                name,
                "not a runtime setting"
                if resolve_field(Config, name)
                else "unknown setting",
            )
            continue
        config = set_dotted(config, name, value, name, issues)
    # Only the overridden paths are checked: an unrelated problem (a CA file deleted since
    # start) must not block changing memory.max_tokens.
    problems = check(config, issues, only=frozenset(overrides))
    if problems:
        raise ConfigError(problems, source="settings")
    return config


def setting_value(config: Config, name: str) -> Any:
    """JSON-friendly value of a setting in `config` (tuples become lists)."""
    resolved = resolve_field(Config, name)
    if resolved is None:
        raise KeyError(name)
    return to_plain(get_path(config, resolved[0]))


def describe(holder: ConfigHolder) -> list[SettingView]:
    """Every setting with its effective value and where it comes from: `override` (runtime,
    admin API), `yaml` (the file or a flag set it, or the base value differs from the
    built-in default), else `default`."""
    defaults = Config()
    views: list[SettingView] = []
    for spec in SETTINGS:
        default = setting_value(defaults, spec.name)
        source: Source
        if spec.name in holder.runtime_overrides:
            source = "override"
        elif (
            spec.name in holder.explicit
            or setting_value(holder.base, spec.name) != default
        ):
            source = "yaml"
        else:
            source = "default"
        views.append(
            SettingView(
                name=spec.name,
                value=setting_value(holder.current, spec.name),
                default=default,
                source=source,
                help=spec.help,
            )
        )
    return views


def apply_log_level(old: Config, new: Config, changed: list[str]) -> None:
    """A ConfigHolder subscriber that makes a changed `log.level` effective on the root
    logger (`holder.subscribe(apply_log_level)` once logging is configured)."""
    if "log.level" in changed:
        logging.getLogger().setLevel(new.log.level.upper())
