"""`memtap embeddings build-static` (distil the static table, offline), `memtap embeddings
build-graph` (the ONNX model's integer graph, before the first start) and `memtap reindex`
(embed every memory that waits for a vector, over the admin API of a running memtap)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from memtap.config.errors import ConfigError
from memtap.config.loader import load_config
from memtap.config.schema import Config
from memtap.proxy.adminclient import AdminClient
from memtap.proxy.cli.client import (
    EXIT_OK,
    EXIT_USAGE,
    add_target_arguments,
    print_json,
    reindex_with_progress,
    run_api_command,
)

EXIT_FAILED = 1
FIRST_WORD_ID = 1996


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    embeddings = sub.add_parser("embeddings", help="local embedding models")
    actions = embeddings.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = actions.add_parser(
        "build-static",
        help="distil the static lookup-table embedding from the ONNX model (~30 s, ~8 MB)",
        description="Builds <data_dir>/embeddings/static.npz (or embedding.static_path) from the "
        "configured ONNX model. Needs the model: pip install 'memtap[local]'.",
    )
    _add_local_arguments(build)
    build.add_argument(
        "--output", help="write the table here instead of the configured path"
    )
    build.add_argument(
        "--dims", type=int, default=256, help="dimensions after PCA (default 256)"
    )
    build.add_argument(
        "--tokens",
        type=int,
        help="only the N most frequent vocabulary tokens (smaller, faster, less exact)",
    )
    build.add_argument(
        "--force", action="store_true", help="rebuild even when the table exists"
    )
    build.add_argument(
        "--json", action="store_true", help="machine-readable JSON output"
    )
    build.set_defaults(handler=_build_static)

    graph = actions.add_parser(
        "build-graph",
        help="build the ONNX model's 8-bit integer graph now (~4 s, ~58 MB), not at the "
        "first start",
        description="Builds <data_dir>/embeddings/<model>.int8-matmul.<key>.onnx (or into "
        "MEMTAP_ONNX_GRAPH_CACHE) from the configured ONNX model, as memtap serve would at "
        "its first start; nothing is done when it is already there. For images and "
        "read-only deployments: build once, start fast.",
    )
    _add_local_arguments(graph)
    graph.add_argument(
        "--json", action="store_true", help="machine-readable JSON output"
    )
    graph.set_defaults(handler=_build_graph)

    reindex = sub.add_parser(
        "reindex",
        help="embed memories that have no vector yet (admin API; resumable)",
        description="Drives POST /_memtap/api/reindex in batches until nothing is pending.",
    )
    add_target_arguments(reindex)
    reindex.add_argument(
        "--batch", type=int, default=256, help="memories per request (default 256)"
    )
    reindex.add_argument(
        "--force",
        action="store_true",
        help="re-embed every memory, not only pending ones",
    )
    reindex.set_defaults(handler=_reindex)


def _add_local_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of an action that works on this machine's config and data dir."""
    parser.add_argument(
        "-c", "--config", help="config file (default config/memtap.yaml when present)"
    )
    parser.add_argument(
        "--data-dir", help="data directory (overrides the config's data_dir)"
    )


def _local_config(args: argparse.Namespace) -> Config | None:
    """The config `-c` and `--data-dir` name; None (the error printed) when it is invalid."""
    try:
        overrides = {"data_dir": args.data_dir} if args.data_dir else None
        return load_config(args.config, overrides)
    except ConfigError as exc:
        print(f"memtap: {exc}", file=sys.stderr)
        return None


def _build_static(args: argparse.Namespace) -> int:
    from memtap.engine.embeddings.resolve import static_path
    from memtap.engine.embeddings.static import build_static

    config = _local_config(args)
    if config is None:
        return EXIT_USAGE
    if args.dims < 8 or (args.tokens is not None and args.tokens < args.dims):
        print(
            "memtap: --dims must be at least 8 and --tokens at least --dims",
            file=sys.stderr,
        )
        return EXIT_USAGE
    # The bert vocabulary is roughly frequency ordered from id 1996 ("the") on.
    token_ids = (
        range(FIRST_WORD_ID, FIRST_WORD_ID + args.tokens) if args.tokens else None
    )
    out = (
        Path(args.output)
        if args.output
        else static_path(config.embedding, config.data_dir)
    )
    if out.exists() and not args.force:
        print(f"memtap: {out} exists (use --force to rebuild)", file=sys.stderr)
        return EXIT_OK
    if not args.json:
        print(f"building static embedding table at {out} ...", file=sys.stderr)
    try:
        report = asyncio.run(
            build_static(
                out,
                model_path=config.embedding.onnx_model_path,
                tokenizer_path=config.embedding.onnx_tokenizer_path,
                dims=args.dims,
                token_ids=token_ids,
            )
        )
    except Exception as exc:  # noqa: BLE001 - the model missing or unreadable: say so, exit 1
        print(f"memtap: build-static failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print_json(
            {
                "path": report.path,
                "tokens": report.tokens,
                "dims": report.dims,
                "seconds": report.seconds,
                "bytes": report.bytes,
                "teacher": report.teacher,
            },
            sys.stdout,
        )
    else:
        print(
            f"built {report.path}: {report.tokens} tokens x {report.dims} dims, "
            f"{report.bytes / 1e6:.1f} MB in {report.seconds:.1f} s (from {report.teacher})"
        )
    return EXIT_OK


def _build_graph(args: argparse.Namespace) -> int:
    from memtap.engine.embeddings import integer_graph as graphs
    from memtap.engine.embeddings.onnx import model_file
    from memtap.engine.embeddings.resolve import graph_cache_folder

    config = _local_config(args)
    if config is None:
        return EXIT_USAGE
    model = model_file(config.embedding.onnx_model_path)
    if model is None or not model.is_file():
        print(
            f"memtap: no onnx model at {model or 'the packaged path'}", file=sys.stderr
        )
        return EXIT_FAILED
    folder = graphs.cache_folder(graph_cache_folder(config.data_dir))
    assert folder is not None  # a data dir always gives a folder

    async def build() -> tuple[Path | bytes, bool]:
        target = graphs.graph_file(
            folder, model, await asyncio.to_thread(graphs.cache_key, model)
        )
        there = target.is_file()
        return await graphs.integer_graph(model, folder), not there

    try:
        graph, built = asyncio.run(build())
    except Exception as exc:  # noqa: BLE001 - no onnx package, a failed build: say so, exit 1
        print(f"memtap: build-graph failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not isinstance(graph, Path):
        print(
            f"memtap: built, but {folder} could not be created: nothing kept",
            file=sys.stderr,
        )
        return EXIT_FAILED
    size = graph.stat().st_size
    if args.json:
        print_json({"path": str(graph), "bytes": size, "built": built}, sys.stdout)
    else:
        print(f"{'built' if built else 'already there:'} {graph} ({size / 1e6:.1f} MB)")
    return EXIT_OK


def _reindex(args: argparse.Namespace) -> int:
    if args.batch < 1:
        print("memtap: --batch must be at least 1", file=sys.stderr)
        return EXIT_USAGE

    async def action(client: AdminClient) -> int:
        report = await reindex_with_progress(client, batch=args.batch, force=args.force)
        if args.json:
            print_json(report, sys.stdout)
        elif not report.get("started", True):
            print(f"reindex not started: {report.get('reason', 'no vector tier')}")
        else:
            print(
                f"reindexed {report.get('done', 0)} memories; {report.get('pending', 0)} pending"
            )
        return EXIT_OK

    return run_api_command(action, args)
