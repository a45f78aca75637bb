-- rollgate indexer schema, version 12 (PostgreSQL): what the writer last found of the chain
-- its node serves, and the store's re-index count. Same table as the SQLite twin; the
-- descriptions live in COMMENT ON.

CREATE TABLE chain_state (
  id            integer PRIMARY KEY CHECK (id = 1),
  epoch         bigint  NOT NULL DEFAULT 0,
  fault         text    NOT NULL DEFAULT '',
  message       text    NOT NULL DEFAULT '',
  stored_height bigint,
  stored_hash   bytea,
  node_height   bigint,
  node_hash     bytea,
  changed_ns    bigint  NOT NULL DEFAULT 0
);
COMMENT ON TABLE chain_state IS 'one row: the writer''s verdict on its node''s chain and the store''s re-index count, so API replicas say and do what the writer''s API does; outlives a re-index (Reset)';
COMMENT ON COLUMN chain_state.id IS 'always 1, so the table can hold one row only';
COMMENT ON COLUMN chain_state.epoch IS 're-indexes so far (each Reset adds one); the streams'' ids carry it, so no id of a dropped chain names an item of the chain held now';
COMMENT ON COLUMN chain_state.fault IS 'empty while the node serves the stored chain, else CHAIN_MISMATCH (halted) or CHAIN_RESET (being dropped to re-index)';
COMMENT ON COLUMN chain_state.message IS 'the writer''s readiness message for fault, with both heights and hashes';
COMMENT ON COLUMN chain_state.stored_height IS 'the stored height the two chains disagree on; NULL without a fault';
COMMENT ON COLUMN chain_state.stored_hash IS 'its hash in the store';
COMMENT ON COLUMN chain_state.node_height IS 'the node''s block compared with it';
COMMENT ON COLUMN chain_state.node_hash IS 'the hash the node gave for stored_height (its block there, or its next block''s parent)';
COMMENT ON COLUMN chain_state.changed_ns IS 'when fault or epoch last changed (Unix ns, the writer''s clock)';
INSERT INTO chain_state (id) VALUES (1);
