-- rollgate transfer tracker schema, version 1 (SQLite). The PostgreSQL twin has the same
-- tables and columns; this store is separate from the indexer's (internal/store).

CREATE TABLE track_transfer ( -- one row per registered (chain, tx hash)
  chain_id    TEXT    NOT NULL, -- chain the tx was submitted to
  tx_hash     TEXT    NOT NULL, -- upper-case hex
  created_ns  INTEGER NOT NULL, -- registration time, ns since the Unix epoch
  updated_ns  INTEGER NOT NULL, -- last time doc changed
  state       TEXT    NOT NULL, -- detailed state (STATE_SUBMITTED, STATE_PENDING, ...)
  terminal    INTEGER NOT NULL, -- 1 once state is STATE_COMPLETED_* or STATE_ABANDONED; never tracked again
  doc         TEXT    NOT NULL, -- the /v2/tx/status answer as last computed (JSON)
  owner       TEXT    NOT NULL DEFAULT '', -- replica holding the lease; '' when free
  lease_until INTEGER NOT NULL DEFAULT 0,  -- lease expiry, ns; another replica may claim it after
  PRIMARY KEY (chain_id, tx_hash)
);
CREATE INDEX track_transfer_active ON track_transfer (terminal, lease_until);

CREATE TABLE track_event ( -- bridge events seen on the watched chains (and the tracked txs themselves)
  id        INTEGER PRIMARY KEY AUTOINCREMENT, -- order of insertion: replicas follow new events by id
  chain_id  TEXT    NOT NULL, -- chain the event happened on
  kind      TEXT    NOT NULL, -- send | recv | wack | ack | timeout | dinit | dfin | winit | wfin | tx
  key       TEXT    NOT NULL, -- packet key port/channel/sequence, l1 sequence, bridge/l2 sequence, or the tx hash for kind tx
  height    INTEGER NOT NULL, -- block height
  tx_index  INTEGER NOT NULL, -- position of the tx in the block
  pos       INTEGER NOT NULL, -- position of the event in the tx (-1 for kind tx)
  msg_index INTEGER NOT NULL, -- msg_index attribute (-1 when absent)
  tx_hash   TEXT    NOT NULL, -- upper-case hex
  time_ns   INTEGER NOT NULL, -- block time, ns since the Unix epoch
  attrs     TEXT    NOT NULL, -- the event's attributes as a JSON object
  UNIQUE (chain_id, height, tx_index, pos)
);
CREATE INDEX track_event_key ON track_event (chain_id, kind, key);
CREATE INDEX track_event_tx ON track_event (chain_id, tx_hash);

CREATE TABLE track_cursor ( -- per watched chain: how far its blocks were scanned
  chain_id    TEXT    PRIMARY KEY,
  height      INTEGER NOT NULL, -- last height scanned (its events are in track_event)
  time_ns     INTEGER NOT NULL, -- that block's time
  owner       TEXT    NOT NULL DEFAULT '', -- replica scanning this chain
  lease_until INTEGER NOT NULL DEFAULT 0
);
