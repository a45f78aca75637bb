-- EVM transactions (eth_getBlockReceipts) and internal transactions (debug_traceBlockByNumber
-- with callTracer), version 3 (PostgreSQL). Same tables as the SQLite twin; descriptions in
-- COMMENT ON.

ALTER TABLE account_dict ADD COLUMN evm_tx_count bigint NOT NULL DEFAULT 0;
ALTER TABLE account_dict ADD COLUMN evm_signer_count bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN account_dict.evm_tx_count IS 'number of evm_tx_accounts rows of the account (= its highest ord)';
COMMENT ON COLUMN account_dict.evm_signer_count IS 'number of those where it is the receipt''s from (= its highest signer_ord)';

CREATE TABLE evm_state (
  id                     integer PRIMARY KEY CHECK (id = 1),
  last_sequence          bigint NOT NULL,
  internal_height        bigint NOT NULL,
  internal_last_sequence bigint NOT NULL
);
INSERT INTO evm_state (id, last_sequence, internal_height, internal_last_sequence) VALUES (1, 0, 0, 0);
COMMENT ON TABLE evm_state IS 'one row: progress of the EVM tables';
COMMENT ON COLUMN evm_state.last_sequence IS 'highest evm_tx sequence; 0 before the first EVM tx';
COMMENT ON COLUMN evm_state.internal_height IS 'last height whose internal txs are stored (/status internal_tx_height); 0 before the first';
COMMENT ON COLUMN evm_state.internal_last_sequence IS 'highest evm_internal_tx sequence; 0 before the first';

CREATE TABLE evm_tx (
  sequence  bigint PRIMARY KEY,
  hash      bytea   NOT NULL,
  height    bigint  NOT NULL,
  tx_index  integer NOT NULL,
  signer_id bigint,
  data      text    NOT NULL
);
CREATE INDEX evm_tx_hash ON evm_tx (hash);
CREATE INDEX evm_tx_height_sequence ON evm_tx (height, sequence);
COMMENT ON TABLE evm_tx IS 'one row per EVM tx receipt';
COMMENT ON COLUMN evm_tx.sequence IS 'global 1-based position over all EVM txs (block order, then transactionIndex); the keyset of the EVM tx lists';
COMMENT ON COLUMN evm_tx.hash IS 'transactionHash (32 bytes)';
COMMENT ON COLUMN evm_tx.height IS 'block height';
COMMENT ON COLUMN evm_tx.tx_index IS 'transactionIndex';
COMMENT ON COLUMN evm_tx.signer_id IS 'account_dict id of the receipt''s from';
COMMENT ON COLUMN evm_tx.data IS 'the API''s EvmTx object (the receipt''s fields the peer keeps) as JSON, served verbatim';

CREATE TABLE evm_tx_accounts (
  account_id bigint  NOT NULL,
  sequence   bigint  NOT NULL,
  signer     boolean NOT NULL,
  ord        bigint  NOT NULL,
  signer_ord bigint,
  PRIMARY KEY (account_id, sequence)
);
CREATE UNIQUE INDEX evm_tx_accounts_ord ON evm_tx_accounts (account_id, ord) INCLUDE (sequence);
CREATE UNIQUE INDEX evm_tx_accounts_signer_ord ON evm_tx_accounts (account_id, signer_ord) INCLUDE (sequence) WHERE signer_ord IS NOT NULL;
CREATE INDEX evm_tx_accounts_signer ON evm_tx_accounts (account_id, sequence) WHERE signer;
COMMENT ON TABLE evm_tx_accounts IS 'edge: which accounts an EVM tx touches (from, to, created contract, log addresses, address topics)';
COMMENT ON COLUMN evm_tx_accounts.account_id IS 'account_dict id';
COMMENT ON COLUMN evm_tx_accounts.sequence IS 'evm_tx sequence';
COMMENT ON COLUMN evm_tx_accounts.signer IS 'true when the account is the receipt''s from';
COMMENT ON COLUMN evm_tx_accounts.ord IS '1-based rank of the tx among the account''s EVM txs, so an offset is a key';
COMMENT ON COLUMN evm_tx_accounts.signer_ord IS '1-based rank among the EVM txs the account sent; NULL when it did not';

CREATE TABLE evm_internal_tx (
  sequence bigint PRIMARY KEY,
  height   bigint NOT NULL,
  hash     bytea  NOT NULL,
  data     text   NOT NULL
);
CREATE INDEX evm_internal_tx_hash ON evm_internal_tx (hash, sequence);
CREATE INDEX evm_internal_tx_height ON evm_internal_tx (height, sequence);
COMMENT ON TABLE evm_internal_tx IS 'one row per call frame of a traced EVM tx, in pre-order';
COMMENT ON COLUMN evm_internal_tx.sequence IS 'global 1-based position over all internal txs (height, tx, frame order)';
COMMENT ON COLUMN evm_internal_tx.height IS 'block height';
COMMENT ON COLUMN evm_internal_tx.hash IS 'transactionHash of the traced tx (32 bytes)';
COMMENT ON COLUMN evm_internal_tx.data IS 'the API''s internal tx object as JSON, served verbatim';

CREATE TABLE evm_internal_account (
  account  bytea  PRIMARY KEY,
  tx_count bigint NOT NULL
);
COMMENT ON TABLE evm_internal_account IS 'per-account counter of evm_internal_tx_accounts';
COMMENT ON COLUMN evm_internal_account.account IS 'raw address (20 bytes)';
COMMENT ON COLUMN evm_internal_account.tx_count IS 'number of evm_internal_tx_accounts rows of the account (= its highest ord)';

CREATE TABLE evm_internal_tx_accounts (
  account  bytea  NOT NULL,
  sequence bigint NOT NULL,
  ord      bigint NOT NULL,
  PRIMARY KEY (account, sequence)
);
CREATE UNIQUE INDEX evm_internal_tx_accounts_ord ON evm_internal_tx_accounts (account, ord) INCLUDE (sequence);
COMMENT ON TABLE evm_internal_tx_accounts IS 'edge: the from and to of each internal tx';
COMMENT ON COLUMN evm_internal_tx_accounts.account IS 'raw address (20 bytes); keyed by address, not account_dict id, so the follower never assigns ids concurrently with block writes';
COMMENT ON COLUMN evm_internal_tx_accounts.sequence IS 'evm_internal_tx sequence';
COMMENT ON COLUMN evm_internal_tx_accounts.ord IS '1-based rank among the account''s internal txs, so an offset is a key';
