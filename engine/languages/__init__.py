"""Language packs: the words of each language memtap reads, as data (`pack.LanguagePack`).

Adding a language is adding one pack module here and naming it in `PACKS` (or calling
`engine.extraction.catalog.register(pack)` at run time)."""
