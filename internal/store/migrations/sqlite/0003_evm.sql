-- EVM transactions (eth_getBlockReceipts) and internal transactions (debug_traceBlockByNumber
-- with callTracer), version 3 (SQLite). Receipts are written in the same transaction as their
-- block; traces by a separate follower, whose progress is evm_state.internal_height.

ALTER TABLE account_dict ADD COLUMN evm_tx_count INTEGER NOT NULL DEFAULT 0; -- number of evm_tx_accounts rows of the account (= its highest ord)
ALTER TABLE account_dict ADD COLUMN evm_signer_count INTEGER NOT NULL DEFAULT 0; -- number of those where it is the receipt's from (= its highest signer_ord)

CREATE TABLE evm_state ( -- one row: progress of the EVM tables
  id                     INTEGER PRIMARY KEY CHECK (id = 1), -- always 1
  last_sequence          INTEGER NOT NULL, -- highest evm_tx sequence; 0 before the first EVM tx
  internal_height        INTEGER NOT NULL, -- last height whose internal txs are stored (/status internal_tx_height); 0 before the first
  internal_last_sequence INTEGER NOT NULL  -- highest evm_internal_tx sequence; 0 before the first
);
INSERT INTO evm_state (id, last_sequence, internal_height, internal_last_sequence) VALUES (1, 0, 0, 0);

CREATE TABLE evm_tx ( -- one row per EVM tx receipt
  sequence  INTEGER PRIMARY KEY, -- global 1-based position over all EVM txs (block order, then transactionIndex); the keyset of the EVM tx lists
  hash      BLOB    NOT NULL,    -- transactionHash (32 bytes)
  height    INTEGER NOT NULL,    -- block height
  tx_index  INTEGER NOT NULL,    -- transactionIndex
  signer_id INTEGER,             -- account_dict id of the receipt's from
  data      TEXT    NOT NULL     -- the API's EvmTx object (the receipt's fields the peer keeps) as JSON, served verbatim
);
CREATE INDEX evm_tx_hash ON evm_tx (hash); -- by-hash lookup
CREATE INDEX evm_tx_height_sequence ON evm_tx (height, sequence); -- by_height lists and height cursors

CREATE TABLE evm_tx_accounts ( -- edge: which accounts an EVM tx touches (from, to, created contract, log addresses, address topics)
  account_id INTEGER NOT NULL, -- account_dict id
  sequence   INTEGER NOT NULL, -- evm_tx sequence
  signer     BOOLEAN NOT NULL, -- true when the account is the receipt's from
  ord        INTEGER NOT NULL, -- 1-based rank of the tx among the account's EVM txs, so an offset is a key
  signer_ord INTEGER,          -- 1-based rank among the EVM txs the account sent; NULL when it did not
  PRIMARY KEY (account_id, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX evm_tx_accounts_ord ON evm_tx_accounts (account_id, ord); -- offset pages of one account
CREATE UNIQUE INDEX evm_tx_accounts_signer_ord ON evm_tx_accounts (account_id, signer_ord) WHERE signer_ord IS NOT NULL; -- offset pages with is_signer=true
CREATE INDEX evm_tx_accounts_signer ON evm_tx_accounts (account_id, sequence) WHERE signer; -- cursor pages with is_signer=true

CREATE TABLE evm_internal_tx ( -- one row per call frame of a traced EVM tx, in pre-order
  sequence INTEGER PRIMARY KEY, -- global 1-based position over all internal txs (height, tx, frame order)
  height   INTEGER NOT NULL,    -- block height
  hash     BLOB    NOT NULL,    -- transactionHash of the traced tx (32 bytes)
  data     TEXT    NOT NULL     -- the API's internal tx object as JSON, served verbatim
);
CREATE INDEX evm_internal_tx_hash ON evm_internal_tx (hash, sequence); -- the internal txs of one tx
CREATE INDEX evm_internal_tx_height ON evm_internal_tx (height, sequence); -- by_height lists and height cursors

CREATE TABLE evm_internal_account ( -- per-account counter of evm_internal_tx_accounts
  account  BLOB    PRIMARY KEY, -- raw address (20 bytes)
  tx_count INTEGER NOT NULL     -- number of evm_internal_tx_accounts rows of the account (= its highest ord)
) WITHOUT ROWID;

CREATE TABLE evm_internal_tx_accounts ( -- edge: the from and to of each internal tx
  account  BLOB    NOT NULL, -- raw address (20 bytes); keyed by address, not account_dict id, so the follower never assigns ids concurrently with block writes
  sequence INTEGER NOT NULL, -- evm_internal_tx sequence
  ord      INTEGER NOT NULL, -- 1-based rank among the account's internal txs, so an offset is a key
  PRIMARY KEY (account, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX evm_internal_tx_accounts_ord ON evm_internal_tx_accounts (account, ord); -- offset pages of one account
