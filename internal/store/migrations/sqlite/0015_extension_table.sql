-- rollgate indexer schema, version 15 (SQLite): the registry of the tables an ingest extension
-- owns (store.ExtensionTable), created by the writer when the extension starts rather than by a
-- migration of the store's, so that Reset empties them and Prune trims them by their height
-- column without the store knowing the extension.

CREATE TABLE extension_table ( -- one row per table an extension created (DB.EnsureExtensionTables)
  name          TEXT PRIMARY KEY, -- the table's name
  height_column TEXT NOT NULL     -- its column holding the block height, which Prune compares with the retained floor
);
