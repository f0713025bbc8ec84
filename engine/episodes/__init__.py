"""Episodes: what was said, kept verbatim beside the facts extracted from it (the
dataclasses and the dedupe identity are in `engine/episode_types.py`, beside `types.py`).

`chunks.py` (sentence windows and snippet trimming, pure), `recall.py` (episode snippets for
one retrieval), `lexical.py` (the owner's own BM25 over the windows read), `partners.py`
(the message that completes a snippet), `render.py` (a snippet's line in the block),
`fused.py` (one ranking over facts and snippets, one budget), `service.py`
(what the engine and the outbox worker call; the window embedder; fail-open). The
`EpisodeStore` port is in `engine/ports.py`; its adapters are
`engine/sqlite/episodes.py` and `engine/qdrant/episodes.py`.
"""
