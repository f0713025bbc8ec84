"""The configuration schema: frozen dataclasses, one per YAML section.

Every field here is a documented key of `config/memtap.yaml`. The loader (`config/loader.py`)
builds these from YAML and names the YAML path of any error; nothing else constructs them
from untrusted input. A field made with `key(...)` (`config/declare.py`) also declares its
range, its help and whether it is a runtime setting: validation, the settings API and the
settings docs are derived from that declaration, nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from memtap.config.declare import key

ApiFormat = Literal["openai", "anthropic", "gemini", "auto"]
Strategy = Literal["recent", "keyword", "semantic", "hybrid"]
Scope = Literal["session", "owner", "global"]
Placement = Literal["prepend", "after_prefix", "last_user"]
Role = Literal["user", "assistant"]
EndUsers = Literal["optional", "required"]
EndUserSource = Literal["header", "body"]
EmbeddingSource = Literal["auto", "remote", "static", "onnx", "none"]
QueryProjectionMode = Literal["auto", "always", "off"]
MultilingualMode = Literal["auto", "off"]
VectorKind = Literal["auto", "sqlite-vec", "qdrant", "none"]
LogFormat = Literal["json", "text"]
InterceptOthers = Literal["tunnel", "deny"]
PrivateNetworks = Literal["deny", "allow"]
RequestLogStoreKind = Literal["memory", "database"]
ExtractionKind = Literal["rules", "model"]
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


@dataclass(frozen=True, slots=True)
class UpstreamConfig:
    """One provider endpoint; requests whose path starts with `prefix` go to `url`."""

    name: str
    url: str
    format: ApiFormat = "auto"
    prefix: str = "/"
    timeout_s: float = key(600.0, above=0)
    connect_timeout_s: float = key(10.0, above=0)
    ca_file: str | None = None


@dataclass(frozen=True, slots=True)
class InterceptConfig:
    hosts: tuple[str, ...] = (
        "api.openai.com",
        "api.anthropic.com",
        "generativelanguage.googleapis.com",
    )
    others: InterceptOthers = "tunnel"
    upstream_ca_file: str | None = None
    proxy_auth: str | None = None
    """`USER:PASSWORD` or `@HTPASSWD_FILE`: CONNECT and absolute-URI requests then need
    `Proxy-Authorization: Basic ...` (else 407). None: no proxy authentication."""
    private_networks: PrivateNetworks = "deny"
    """deny: clients not on this host may not reach private, loopback, link-local or
    unique-local addresses through the forward proxy (403). allow: only loopback is refused."""
    allow: tuple[str, ...] = ()
    """Destinations reachable anyway: host patterns as in `hosts`, or IP networks (CIDR)."""


@dataclass(frozen=True, slots=True)
class AdminConfig:
    token: str | None = None
    listen: str | None = None
    request_log_size: int = key(500, at_least=0)
    request_log_store: RequestLogStoreKind = "memory"
    """memory: the request log starts empty at each start; database: it is kept in the local
    SQLite file too (the newest `request_log_size` entries) and survives restarts."""


@dataclass(frozen=True, slots=True)
class EpisodesConfig:
    """What was said, kept verbatim beside the extracted facts (`engine/episodes/`)."""

    enabled: bool = key(
        True,
        runtime=True,
        help="Keep what was said (episodes) and recall snippets of it beside facts.",
    )
    keep_assistant: bool = key(
        True,
        runtime=True,
        help="Also keep the assistant's side as episodes (the message a user turn "
        "answers and the reply).",
    )
    """Also keep the assistant's side (role `assistant`, at most its first 4,000 characters):
    the reply of each turn and the message a user turn answers, so "what was that recipe you
    gave me?" finds it and a recalled answer comes with its question."""
    max_per_owner: int = key(
        50_000,
        at_least=1,
        runtime=True,
        help="Episodes kept per owner; the oldest are evicted past it.",
    )
    """Episodes kept per owner; past it the oldest (by `said_at`) are evicted."""
    retention_days: int | None = key(
        None,
        at_least=1,
        null_means="to follow memory.retention_days",
        runtime=True,
        help="Delete episodes said longer ago than this; null follows "
        "memory.retention_days.",
    )
    """Delete episodes said longer ago than this; None follows `memory.retention_days`."""
    min_similarity: float = key(
        0.20,
        at_least=-1,
        at_most=1,
        runtime=True,
        help="Cosine floor of an episode snippet's vector match.",
    )
    """Cosine floor of an episode snippet matched by meaning alone (a keyword match needs
    half of it): sentence windows score lower than one-line facts, so their floor is their
    own (`engine/episodes/recall.py` says how it was measured)."""
    max_snippets: int = key(
        16,
        at_least=0,
        runtime=True,
        help="Most episode snippets injected into one request.",
    )
    """Most episode snippets injected into one request (`memory.max_tokens` still applies:
    the budget is filled with the best-ranked evidence)."""
    snippet_tokens: int = key(
        80,
        at_least=8,
        runtime=True,
        help="Longest episode snippet in tokens, after trimming to the matched sentences.",
    )
    """Longest snippet, in tokens, after trimming to the sentences that matched."""


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    enabled: bool = key(
        True,
        runtime=True,
        help="Master switch: false makes memtap a pure pass-through proxy.",
    )
    strategy: Strategy = key(
        "hybrid", runtime=True, help="How memories are ranked for a request."
    )
    scope: Scope = key("owner", runtime=True, help="Which memories a request may see.")
    max_tokens: int = key(
        600,
        at_least=1,
        at_most=16000,
        runtime=True,
        help="Token budget of the injected memory block.",
    )
    retention_days: int | None = key(
        None,
        at_least=1,
        null_means="for never",
        runtime=True,
        help="Delete memories older than this many days; null keeps them.",
    )
    extract_from: tuple[Role, ...] = key(
        ("user",),
        runtime=True,
        help="Roles whose messages are mined for memories: [user], [user, assistant].",
    )
    placement: Placement = key(
        "last_user",
        runtime=True,
        help="Where memories go: after_prefix, prepend or last_user (with the last user "
        "turn).",
    )
    users: EndUsers = key(
        "optional",
        runtime=True,
        help="End users behind one key: required gives a request naming none no memory.",
    )
    """required: a request that names no end user gets no memory at all (still proxied)."""
    user_from: tuple[EndUserSource, ...] = key(
        ("header", "body"),
        runtime=True,
        help="Where a request names its end user, in order of precedence: [header, body] "
        "(X-Memtap-User; OpenAI safety_identifier / user, Anthropic metadata.user_id).",
    )
    """Where a request names its end user, in order of precedence: the X-Memtap-User
    header, the body's own field (OpenAI `safety_identifier` / `user`, Anthropic
    `metadata.user_id`)."""
    rrf_k: int = key(
        60,
        at_least=1,
        runtime=True,
        help="Reciprocal-rank-fusion constant k of the hybrid strategy.",
    )
    top_k: int = key(
        20,
        at_least=1,
        runtime=True,
        help="Candidates fetched from each retrieval tier before fusion.",
    )
    min_score: float = key(
        0.0,
        at_least=0,
        runtime=True,
        help="Relevance floor for keyword hits (bm25 relevance).",
    )
    """Relevance floor: keyword hits need bm25 relevance, vector hits cosine >= `min_similarity`."""
    min_similarity: float = key(
        0.30,
        at_least=-1,
        at_most=1,
        runtime=True,
        help="Cosine floor for vector hits.",
    )
    max_items: int = key(
        12,
        at_least=1,
        runtime=True,
        help="Most memories injected into one request.",
    )
    retrieval_timeout_ms: int = key(
        250,
        at_least=1,
        runtime=True,
        help="Retrieval time limit; past it the request goes on without memory (at it, "
        "with what the retrieval read before it, if anything).",
    )
    max_concurrent_retrievals: int = key(
        8,
        at_least=0,
        runtime=True,
        help="Retrievals that run their vector legs at once; more wait their turn, up "
        "to a fifth of the time limit, then run keyword only (0 = no limit). Keyword "
        "legs never wait.",
    )
    """The slots: `engine/retrieval/admission/slots.py`."""
    vector_skip_coverage: float = key(
        1.0,
        at_least=0,
        at_most=1,
        runtime=True,
        help="Hybrid skips the query embedding when a top keyword hit holds this share "
        "of the question's topic words (0 = never).",
    )
    """Hybrid skips the query embedding and the vector search when one of the best keyword
    hits holds at least this share of the question's topic words (0 = never skip;
    `engine/retrieval/confidence.py`)."""
    summarize_after_days: int | None = key(
        None,
        at_least=1,
        null_means="for never",
        runtime=True,
        help="Compact memories older than this many days; null disables.",
    )
    sweep_interval_s: float = key(
        3600.0,
        above=0,
        runtime=True,
        help="Seconds between retention sweeps.",
    )
    backfill_interval_s: float = key(
        30.0,
        above=0,
        runtime=True,
        help="Seconds between the vector backfill's checks for memories without a vector.",
    )
    """Seconds between the vector backfill's checks for memories without a vector (it also
    runs at start and after a failed vector write)."""
    outbox_max_rows: int = key(
        100_000,
        at_least=1,
        runtime=True,
        help="Turns the extraction outbox holds at most; beyond it new turns are not kept.",
    )
    """Turns the outbox holds at most (a store outage must not fill the disk): beyond it new
    turns are refused, fail-open, and counted."""
    episodes: EpisodesConfig = key(
        default_factory=EpisodesConfig,
        runtime=True,
        help="The episodes section as one object: each key given is set as its own "
        "memory.episodes.* setting, the others keep their values.",
    )


@dataclass(frozen=True, slots=True)
class RemoteEmbeddingConfig:
    url: str | None = None
    model: str = "text-embedding-3-small"
    api_key: str | None = None
    dim: int | None = key(None, at_least=1, null_means="to detect it")
    timeout_s: float = key(5.0, above=0)
    batch_size: int = key(64, at_least=1)


@dataclass(frozen=True, slots=True)
class EmbeddingConfig:
    source: EmbeddingSource = key("auto", runtime=True, help="Embedding model.")
    onnx_model_path: str | None = None
    """Path of an ONNX sentence-embedding model; None = the packaged all-MiniLM-L6-v2."""
    onnx_tokenizer_path: str | None = None
    onnx_integer_matmul: bool = True
    """Run the ONNX model's matmuls in 8-bit integers (built from the model at first load,
    kept under `<data_dir>/embeddings/`); false runs the model's graph as it is. The two give
    different vectors (the signature says which): a change re-embeds every memory."""
    query_projection: QueryProjectionMode = key(
        "auto",
        runtime=True,
        help="Local model's query embeddings: auto (projected into the model's space "
        "while the model is busy with other queries), always (always projected), off "
        "(the model).",
    )
    """How the local ONNX model's query embeddings are made (`engine/embeddings/projected.py`):
    auto = projected into the model's space when the model is busy with other queries,
    always = always projected, off = always by the model."""
    static_path: str | None = None
    """Where the distilled static table lives; None = `<data_dir>/embeddings/static.npz`."""
    multilingual: MultilingualMode = "auto"
    """auto: episode windows said in German, Spanish, Portuguese or French also get a
    vector from the multilingual model (in the default install), and an
    owner with enough of them is searched by both models (`engine/embeddings/multilingual.py`);
    off: the local model alone. Needs a restart."""
    remote: RemoteEmbeddingConfig = field(default_factory=RemoteEmbeddingConfig)
    cache_max: int = key(1000, at_least=0)
    cache_ttl_ms: int = key(300_000, at_least=0)
    timeout_ms: int = key(2000, at_least=1)


@dataclass(frozen=True, slots=True)
class ModelExtractionConfig:
    """An OpenAI-compatible chat endpoint that extracts facts (`engine/extractors/model.py`)."""

    url: str | None = None
    """Base URL as in `OPENAI_BASE_URL` (`http://127.0.0.1:11434/v1`); memtap posts to
    `{url}/chat/completions`."""
    api_key: str | None = None
    """Sent as `Authorization: Bearer {api_key}`; None sends no Authorization."""
    model: str | None = None
    timeout_s: float = key(20.0, above=0)
    calls_per_minute: int = key(60, at_least=1)
    """All owners together; past it a batch goes to the rules."""
    owner_calls_per_minute: int = key(6, at_least=1)
    """One owner; past it that owner's batch goes to the rules."""
    daily_tokens: int = key(1_000_000, at_least=1)
    """Tokens in and out per UTC day (the answer's `usage`, estimated when absent)."""
    max_turns_per_call: int = key(8, at_least=1)
    """An owner's batch of more turns is sent in several calls."""
    max_turn_chars: int = key(4000, at_least=100)
    """Characters of each turn's text sent (the tail: the newest words)."""
    related_memories: int = key(20, at_least=0)
    """The owner's live memories sent with the turns, that the answer may replace."""
    max_output_tokens: int = key(1024, at_least=64)
    concurrency: int = key(4, at_least=1)
    """Calls in flight at once (different owners of one page)."""
    temperature: float = key(0.0, at_least=0, at_most=2)


@dataclass(frozen=True, slots=True)
class ExtractionConfig:
    """Who reads facts out of the turns: the rules (offline) or a model (opt-in)."""

    kind: ExtractionKind = "rules"
    model: ModelExtractionConfig = field(default_factory=ModelExtractionConfig)


@dataclass(frozen=True, slots=True)
class QdrantConfig:
    url: str | None = None
    path: str | None = None
    api_key: str | None = None
    collection: str = "memtap_memories"
    timeout_s: float = key(5.0, above=0)


@dataclass(frozen=True, slots=True)
class VectorStoreConfig:
    kind: VectorKind = "auto"
    qdrant: QdrantConfig = field(default_factory=QdrantConfig)


@dataclass(frozen=True, slots=True)
class LogConfig:
    format: LogFormat = "json"
    level: str = key(
        "info",
        one_of=LOG_LEVELS,
        runtime=True,
        help="Log level (in any case).",
    )
    file: str | None = None


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """Limits on the client side of the proxy: slow, idle and too many connections."""

    head_timeout_s: float = key(30.0, above=0)
    """From the first byte of a request to the end of its headers; exceeded → 408, closed."""
    body_idle_timeout_s: float = key(60.0, above=0)
    """Longest pause while a request body is still arriving; exceeded → closed."""
    keepalive_timeout_s: float = key(75.0, above=0)
    """An idle connection between requests is closed after this long."""
    write_timeout_s: float = key(120.0, above=0)
    """Longest a client may leave memtap's writes to it blocked (not reading); then dropped."""
    max_connections: int = key(10000, at_least=0)
    """Open client connections per listener; 0 = no limit."""
    max_connections_per_address: int = key(1000, at_least=0)
    """Open client connections from one client address; 0 = no limit."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Proxy behaviour that is not per upstream."""

    shutdown_grace_s: float = key(30.0, at_least=0)
    max_rewrite_body_bytes: int = key(32 * 1024 * 1024, at_least=0)
    """Bodies larger than this are streamed upstream untouched (no memory)."""
    max_rewrite_inflight_bytes: int = key(64 * 1024 * 1024, at_least=0)
    """Bytes of request bodies read whole for memory at once, across requests: a body that
    would pass it while others are held is streamed upstream untouched (no memory). A body
    alone always fits (up to `max_rewrite_body_bytes`). 0 = no limit."""
    client: ClientConfig = field(default_factory=ClientConfig)


DEFAULT_UPSTREAM = UpstreamConfig(
    name="openai", url="https://api.openai.com", format="auto"
)


@dataclass(frozen=True, slots=True)
class Config:
    listen: str = "127.0.0.1:8080"
    data_dir: str = "./data"
    upstreams: tuple[UpstreamConfig, ...] = (DEFAULT_UPSTREAM,)
    intercept: InterceptConfig = field(default_factory=InterceptConfig)
    admin: AdminConfig = field(default_factory=AdminConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    vector_store: VectorStoreConfig = field(default_factory=VectorStoreConfig)
    log: LogConfig = field(default_factory=LogConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
