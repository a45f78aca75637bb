-- rollgate indexer schema, version 9 (PostgreSQL): the transfers index and the block time
-- index. Same tables as the SQLite twin; descriptions in COMMENT ON.

CREATE TABLE transfer (
  id                bigint PRIMARY KEY,
  height            bigint  NOT NULL,
  time_ns           bigint  NOT NULL,
  tx_hash           bytea   NOT NULL,
  msg_index         integer,
  kind              text    NOT NULL,
  from_addr         bytea,
  to_addr           bytea,
  denom             text    NOT NULL,
  contract          bytea,
  amount            text    NOT NULL,
  token_id          text,
  counterparty      text,
  counterparty_addr text
);
CREATE INDEX transfer_from ON transfer (from_addr, id) WHERE from_addr IS NOT NULL;
CREATE INDEX transfer_to ON transfer (to_addr, id) WHERE to_addr IS NOT NULL;
CREATE INDEX transfer_denom ON transfer (denom, id);
CREATE INDEX transfer_contract ON transfer (contract, id) WHERE contract IS NOT NULL;
CREATE INDEX transfer_tx ON transfer (tx_hash, id);
CREATE INDEX transfer_height ON transfer (height, id);
COMMENT ON TABLE transfer IS 'one row per token movement, in block, tx and event order';
COMMENT ON COLUMN transfer.id IS 'global 1-based position over all transfers; the keyset of the transfer lists';
COMMENT ON COLUMN transfer.height IS 'block height';
COMMENT ON COLUMN transfer.time_ns IS 'block time, Unix nanoseconds';
COMMENT ON COLUMN transfer.tx_hash IS 'hash of the Cosmos tx that moved it (32 bytes)';
COMMENT ON COLUMN transfer.msg_index IS 'the event''s msg_index; NULL for the tx''s fee and other ante-handler moves';
COMMENT ON COLUMN transfer.kind IS 'send, mint, burn, ibc_send, ibc_receive, deposit, withdrawal, erc20, erc721, cw20, cw721, move';
COMMENT ON COLUMN transfer.from_addr IS 'raw sender address; NULL for a mint';
COMMENT ON COLUMN transfer.to_addr IS 'raw recipient address; NULL for a burn';
COMMENT ON COLUMN transfer.denom IS 'bank denom, or the token''s name on its VM (evm/<hex>, cw20:<bech32>, move/<hex>)';
COMMENT ON COLUMN transfer.contract IS 'the token contract or Move metadata object; NULL for plain bank coins';
COMMENT ON COLUMN transfer.amount IS 'base units as a decimal string ("1" for an NFT)';
COMMENT ON COLUMN transfer.token_id IS 'the NFT''s token id; NULL for fungible tokens';
COMMENT ON COLUMN transfer.counterparty IS 'the other chain''s side: IBC channel, OPinit bridge L1';
COMMENT ON COLUMN transfer.counterparty_addr IS 'the address on the other chain (IBC receiver or sender, OPinit L1 account)';

CREATE INDEX block_time ON block (time_ns, height);
COMMENT ON INDEX block_time IS 'the time -> height lookup of start_time/end_time';
