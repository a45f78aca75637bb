-- rollgate indexer schema, version 1 (SQLite).
-- SQLite has no COMMENT ON: the comments below are kept verbatim in sqlite_master, so
-- `.schema` shows them. The PostgreSQL twin of this file carries the same text as COMMENT ON.
-- NFT, rich-list and EVM tables are later migrations; ids and sequences here are shaped so
-- they can join these tables (account_dict ids, the global tx sequence).

CREATE TABLE indexed_height ( -- one row: how far ingestion got, updated in the same transaction as the data
  id            INTEGER PRIMARY KEY CHECK (id = 1), -- always 1, so the table can hold one row only
  height        INTEGER NOT NULL, -- last height whose block and txs are fully stored; 0 when the store is empty
  first_height  INTEGER NOT NULL, -- first height stored; blocks are contiguous from first_height to height
  last_sequence INTEGER NOT NULL  -- highest tx sequence assigned so far; 0 before the first tx
);
INSERT INTO indexed_height (id, height, first_height, last_sequence) VALUES (1, 0, 0, 0);

CREATE TABLE block ( -- one row per indexed block
  height         INTEGER PRIMARY KEY, -- block height
  chain_id       TEXT    NOT NULL,    -- header.chain_id
  hash           BLOB    NOT NULL,    -- block_id.hash (32 bytes)
  time_ns        INTEGER NOT NULL,    -- header.time in nanoseconds since the Unix epoch, UTC
  block_time_ms  INTEGER NOT NULL,    -- milliseconds since the previous block; 0 for the first indexed block
  proposer       TEXT,                -- proposer as JSON {"moniker","identity","operator_address"}; NULL when unknown
  gas_used       INTEGER NOT NULL,    -- sum of the txs' gas_used
  gas_wanted     INTEGER NOT NULL,    -- sum of the txs' gas_wanted
  tx_count       INTEGER NOT NULL,    -- number of txs in the block
  total_fee      TEXT    NOT NULL,    -- JSON array of coins summed over the txs' fees; the JSON text null when the block has no txs
  first_sequence INTEGER NOT NULL,    -- sequence of the block's first tx; the block's txs are first_sequence..last_sequence
  last_sequence  INTEGER NOT NULL     -- sequence of the block's last tx; first_sequence-1 when the block has no txs
) WITHOUT ROWID;

CREATE TABLE account_dict ( -- dictionary of every account seen in a tx, so edge tables store small ids
  id           INTEGER PRIMARY KEY,        -- dictionary id, assigned on first sight
  account      BLOB    NOT NULL UNIQUE,    -- raw address bytes (20 or 32)
  tx_count     INTEGER NOT NULL DEFAULT 0, -- number of tx_accounts rows of the account (= its highest ord)
  signer_count INTEGER NOT NULL DEFAULT 0  -- number of those where it signed (= its highest signer_ord)
);

CREATE TABLE msg_type_dict ( -- dictionary of message type URLs
  id       INTEGER PRIMARY KEY,       -- dictionary id, assigned on first sight
  msg_type TEXT    NOT NULL UNIQUE,   -- type URL without the leading '/', e.g. cosmos.bank.v1beta1.MsgSend
  tx_count INTEGER NOT NULL DEFAULT 0 -- number of txs holding the type (= its highest ord)
);

CREATE TABLE tx ( -- one row per indexed Cosmos tx
  sequence  INTEGER PRIMARY KEY, -- global 1-based position over all txs (block order, then index in block); the keyset of every tx list
  hash      BLOB    NOT NULL,    -- SHA-256 of the tx bytes (32 bytes)
  height    INTEGER NOT NULL,    -- height of the block holding the tx
  tx_index  INTEGER NOT NULL,    -- position in the block, from 0
  signer_id INTEGER,             -- account_dict id of the first signer; NULL when unknown
  data      TEXT    NOT NULL     -- the API's Tx object as JSON, served verbatim
);
CREATE INDEX tx_hash ON tx (hash); -- by-hash lookup (not unique: the peer keys on (hash, height))
CREATE INDEX tx_height_sequence ON tx (height, sequence); -- height-keyed cursors on tx lists

CREATE TABLE tx_accounts ( -- edge: which accounts a tx touches
  account_id INTEGER NOT NULL, -- account_dict id
  sequence   INTEGER NOT NULL, -- tx sequence
  signer     BOOLEAN NOT NULL, -- true when the account is the tx's first signer
  ord        INTEGER NOT NULL, -- 1-based rank of the tx among the account's txs, so an offset is a key
  signer_ord INTEGER,          -- 1-based rank among the txs the account signed; NULL when it did not sign
  PRIMARY KEY (account_id, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX tx_accounts_ord ON tx_accounts (account_id, ord); -- offset pages of one account
CREATE UNIQUE INDEX tx_accounts_signer_ord ON tx_accounts (account_id, signer_ord) WHERE signer_ord IS NOT NULL; -- offset pages with is_signer=true
CREATE INDEX tx_accounts_signer ON tx_accounts (account_id, sequence) WHERE signer; -- cursor pages with is_signer=true
CREATE INDEX tx_accounts_sequence ON tx_accounts (sequence); -- per-tx lookups and cleanups

CREATE TABLE tx_msg_types ( -- edge: which message types a tx contains (deduplicated per tx)
  msg_type_id INTEGER NOT NULL, -- msg_type_dict id
  sequence    INTEGER NOT NULL, -- tx sequence
  ord         INTEGER NOT NULL, -- 1-based rank of the tx among the type's txs, so an offset is a key
  PRIMARY KEY (msg_type_id, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX tx_msg_types_ord ON tx_msg_types (msg_type_id, ord); -- offset pages of one type
CREATE INDEX tx_msg_types_sequence ON tx_msg_types (sequence, msg_type_id); -- msgs filter combined with an account or height
