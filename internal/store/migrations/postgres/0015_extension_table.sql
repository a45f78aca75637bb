-- rollgate indexer schema, version 15 (PostgreSQL): the registry of the tables an ingest
-- extension owns. Same table as the SQLite twin; the descriptions live in COMMENT ON.

CREATE TABLE extension_table (
  name          text PRIMARY KEY,
  height_column text NOT NULL
);
COMMENT ON TABLE extension_table IS 'one row per table an ingest extension created (store.DB.EnsureExtensionTables), which Reset empties and Prune trims';
COMMENT ON COLUMN extension_table.name IS 'the table''s name';
COMMENT ON COLUMN extension_table.height_column IS 'its column holding the block height, which Prune compares with the retained floor';
