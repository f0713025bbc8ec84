"""The outbox worker: turns waiting in the outbox become memories (`outbox_worker.py`)."""
