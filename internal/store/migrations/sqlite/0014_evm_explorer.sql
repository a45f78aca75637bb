-- rollgate indexer schema, version 14 (SQLite): the explorer fields of an EVM tx item, beside
-- the peer's receipt object. The API serves data with these keys appended (evm.go), so an
-- explorer renders a row without asking the chain's JSON-RPC for the tx, its block and its
-- Cosmos tx. Rows written before this migration keep NULL here and answer the peer's receipt
-- alone until the store is re-indexed.

ALTER TABLE evm_tx ADD COLUMN explorer TEXT; -- JSON object of the additive keys (timestamp, tx_hash, value, input, nonce, gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas); NULL: none known
