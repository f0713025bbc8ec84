"""Supersession: what a memory's content claims, how a write settles against the live memories
about the same subject (`conflict.py`), and the restatements the worker drops (`restatement.py`)."""
