-- rollgate indexer schema, version 9 (SQLite): the transfers index, one row per movement of a
-- fungible or non-fungible token (bank sends, IBC and OPinit legs, ERC-20/721, CW20/721, Move
-- fungible assets), written in the same transaction as its block; and a time index on blocks,
-- the time -> height lookup of the lists' start_time/end_time.

CREATE TABLE transfer ( -- one row per token movement, in block, tx and event order
  id                INTEGER PRIMARY KEY, -- global 1-based position over all transfers; the keyset of the transfer lists
  height            INTEGER NOT NULL,    -- block height
  time_ns           INTEGER NOT NULL,    -- block time, Unix nanoseconds
  tx_hash           BLOB    NOT NULL,    -- hash of the Cosmos tx that moved it (32 bytes)
  msg_index         INTEGER,             -- the event's msg_index; NULL for the tx's fee and other ante-handler moves
  kind              TEXT    NOT NULL,    -- send, mint, burn, ibc_send, ibc_receive, deposit, withdrawal, erc20, erc721, cw20, cw721, move
  from_addr         BLOB,                -- raw sender address; NULL for a mint
  to_addr           BLOB,                -- raw recipient address; NULL for a burn
  denom             TEXT    NOT NULL,    -- bank denom, or the token's name on its VM (evm/<hex>, cw20:<bech32>, move/<hex>)
  contract          BLOB,                -- the token contract or Move metadata object; NULL for plain bank coins
  amount            TEXT    NOT NULL,    -- base units as a decimal string ("1" for an NFT)
  token_id          TEXT,                -- the NFT's token id; NULL for fungible tokens
  counterparty      TEXT,                -- the other chain's side: IBC channel, OPinit bridge L1
  counterparty_addr TEXT                 -- the address on the other chain (IBC receiver or sender, OPinit L1 account)
);
CREATE INDEX transfer_from ON transfer (from_addr, id) WHERE from_addr IS NOT NULL; -- an account's outgoing transfers
CREATE INDEX transfer_to ON transfer (to_addr, id) WHERE to_addr IS NOT NULL; -- an account's incoming transfers
CREATE INDEX transfer_denom ON transfer (denom, id); -- by_denom lists
CREATE INDEX transfer_contract ON transfer (contract, id) WHERE contract IS NOT NULL; -- by_denom of a 0x contract
CREATE INDEX transfer_tx ON transfer (tx_hash, id); -- by_tx lists
CREATE INDEX transfer_height ON transfer (height, id); -- time ranges (height -> id) and pruning

CREATE INDEX block_time ON block (time_ns, height); -- the time -> height lookup of start_time/end_time
