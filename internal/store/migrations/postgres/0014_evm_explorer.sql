-- rollgate indexer schema, version 14 (PostgreSQL): the explorer fields of an EVM tx item,
-- beside the peer's receipt object. Same column as the SQLite twin; the description lives in
-- COMMENT ON.

ALTER TABLE evm_tx ADD COLUMN explorer text;
COMMENT ON COLUMN evm_tx.explorer IS 'JSON object of the additive keys (timestamp, tx_hash, value, input, nonce, gas, gasPrice, maxFeePerGas, maxPriorityFeePerGas) the API appends to data; NULL: none known (rows written before version 14 until re-indexed)';
