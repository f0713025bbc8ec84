"""Episodes: what was said, kept verbatim beside the facts extracted from it.

`model.py` (the dataclasses and the dedupe identity), `chunks.py` (sentence windows and
snippet trimming, pure), `recall.py` (episode candidates for one retrieval), `fused.py` (one
ranking over facts and episode snippets, one budget), `embedder.py` (chunk vectors off the
request path). The `EpisodeStore` port is in `engine/ports.py`; its adapters are
`engine/sqlite/episode_store.py` and `engine/qdrant/episodes.py`.
"""
