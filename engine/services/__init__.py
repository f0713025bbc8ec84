"""The engine's services: each does one job over the ports (`engine/ports.py`), and
`engine.engine.Engine` wires them and orchestrates. None names an adapter.

- `retrieval.py` (`RetrievalService`): one retrieval admitted — shedding, vector slots, the
  caller's time limit and partial answers — ranked (`engine/retrieval/`) with the episodes'
  snippets; `own_writes.py` (`OwnWrites`): the bounded wait for an owner's own turns.
- `intake.py` (`TurnIntake`): live turns and conversation imports into the outbox, refused
  past its capacity (`outbox_depth.py`: `OutboxDepth`, the count of waiting turns).
- `memories.py` (`MemoryWrites`): CRUD, conflict settling, import/export, summarize and
  restore; `vectors.py` (`VectorUpkeep`): the vector index kept in step, fail-open, with
  its backfill, reindex and status; `erase.py` (`OwnerErase`): an owner erased everywhere.
- `episodes_admin.py` (`EpisodesAdmin`): list, read, delete, export, import episodes.
- `tasks.py` (`BackgroundTasks`): the worker, sweeper, backfill, episode embedder and
  loop-lag probe started and stopped; `recovery.py` (`LocalFileRecovery`): the local file
  reopened when it was deleted or replaced.
- `status.py` (`StatusReport`): engine-status and health; `local_records.py`
  (`LocalRecords`): settings overrides and the request log kept in the local file.
- `guard.py`: the fail-open edge, only `EngineError`s leave a public method.
"""
