"""The plain SQL the SQLite adapters run: synchronous functions over one driver connection,
called through `Database.read` / `Database.write`, one module per table family (memories and
their FTS5 index, summaries, the sqlite-vec vectors, episodes)."""
