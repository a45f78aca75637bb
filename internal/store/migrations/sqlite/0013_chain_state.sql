-- rollgate indexer schema, version 12 (SQLite): what the writer last found of the chain its
-- node serves, and how many times the store was dropped to index another chain, in the store
-- so that API replicas (`--mode api`, which read the store only) say and do what the writer's
-- own API does: /readyz CHAIN_MISMATCH, streams ended, resume points of a dropped chain refused.
-- Unlike chain_identity it outlives a re-index (store.DB.Reset).

CREATE TABLE chain_state ( -- one row: the writer's verdict on its node's chain, and the store's re-index count
  id            INTEGER PRIMARY KEY CHECK (id = 1), -- always 1, so the table can hold one row only
  epoch         INTEGER NOT NULL DEFAULT 0,  -- re-indexes so far (each Reset adds one); the streams' ids carry it, so no id of a dropped chain names an item of the chain held now
  fault         TEXT    NOT NULL DEFAULT '', -- empty while the node serves the stored chain, else CHAIN_MISMATCH (halted) or CHAIN_RESET (being dropped to re-index)
  message       TEXT    NOT NULL DEFAULT '', -- the writer's readiness message for fault, with both heights and hashes
  stored_height INTEGER,                     -- the stored height the two chains disagree on; NULL without a fault
  stored_hash   BLOB,                        -- its hash in the store
  node_height   INTEGER,                     -- the node's block compared with it
  node_hash     BLOB,                        -- the hash the node gave for stored_height (its block there, or its next block's parent)
  changed_ns    INTEGER NOT NULL DEFAULT 0   -- when fault or epoch last changed (Unix ns, the writer's clock)
);
INSERT INTO chain_state (id) VALUES (1);
