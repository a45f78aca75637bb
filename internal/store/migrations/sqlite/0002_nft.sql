-- rollgate indexer schema, version 2 (SQLite): NFT collections, tokens and their tx history.
-- Written in the same transaction as the block that changed them, so they are exactly as of
-- indexed_height.height. Comments kept in sqlite_master; the PostgreSQL twin uses COMMENT ON.

CREATE TABLE nft_collection ( -- one row per NFT collection
  addr        BLOB    PRIMARY KEY,        -- collection address: Move collection object (32 bytes), EVM contract (20), Wasm contract (32)
  height      INTEGER NOT NULL,           -- creation block (EVM: block of the first tx touching the contract; Wasm: first CW721 event)
  time_ns     INTEGER NOT NULL,           -- that block's time in nanoseconds since the Unix epoch, UTC
  name        TEXT    NOT NULL,           -- collection name as the chain reports it
  origin_name TEXT    NOT NULL DEFAULT '', -- L1 class name of a collection received over ICS-721; '' otherwise
  name_norm   TEXT    NOT NULL,           -- name with everything but letters, marks and digits removed, lowercased (by_name search)
  origin_norm TEXT    NOT NULL DEFAULT '', -- the same for origin_name
  creator     BLOB    NOT NULL,           -- creator's raw address bytes; empty when unknown
  nft_count   INTEGER NOT NULL DEFAULT 0  -- live tokens of the collection (burned ones are gone)
) WITHOUT ROWID;
CREATE UNIQUE INDEX nft_collection_height ON nft_collection (height, addr); -- collection lists: height order, address tie-break

CREATE TABLE nft_dict ( -- dictionary of every token ever seen, so its tx history survives a burn and a re-mint
  id              INTEGER PRIMARY KEY,       -- dictionary id, assigned on first sight
  collection_addr BLOB    NOT NULL,          -- collection address
  token_id        TEXT    NOT NULL,          -- token id as the chain reports it
  tx_count        INTEGER NOT NULL DEFAULT 0, -- number of nft_txs rows of the token (= its highest ord)
  UNIQUE (collection_addr, token_id)
);

CREATE TABLE nft ( -- one row per live token
  collection_addr BLOB    NOT NULL, -- collection address
  token_id        TEXT    NOT NULL, -- token id
  nft_id          INTEGER NOT NULL, -- nft_dict id
  object_addr     BLOB    NOT NULL, -- Move: the NFT object's address (32 bytes); EVM and Wasm: empty
  owner           BLOB    NOT NULL, -- owner's raw address bytes
  uri             TEXT    NOT NULL, -- token URI (NUL bytes removed)
  height          INTEGER NOT NULL, -- block of the last mint, transfer or URI change
  time_ns         INTEGER NOT NULL, -- that block's time in nanoseconds since the Unix epoch, UTC
  PRIMARY KEY (collection_addr, token_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX nft_owner_token ON nft (owner, token_id, height, collection_addr); -- tokens/by_account, order_by=token_id
CREATE UNIQUE INDEX nft_owner_height ON nft (owner, height, token_id, collection_addr); -- tokens/by_account, order_by=height
CREATE UNIQUE INDEX nft_collection_height_token ON nft (collection_addr, height, token_id); -- tokens/by_collection, order_by=height
CREATE INDEX nft_object ON nft (object_addr) WHERE object_addr <> X''; -- Move events name the NFT object, not (collection, token_id)

CREATE TABLE nft_txs ( -- edge: which txs minted, moved, changed or burned a token (EVM and Wasm; Move history goes through tx_accounts of the NFT object)
  nft_id   INTEGER NOT NULL, -- nft_dict id
  sequence INTEGER NOT NULL, -- tx sequence
  ord      INTEGER NOT NULL, -- 1-based rank of the tx among the token's txs, so an offset is a key
  PRIMARY KEY (nft_id, sequence)
) WITHOUT ROWID;
CREATE UNIQUE INDEX nft_txs_ord ON nft_txs (nft_id, ord); -- offset pages of one token

CREATE TABLE nft_not_collection ( -- contracts that emitted ERC-721-shaped logs or CW721-shaped events but are no NFT collection (name() reverts, contract_info unknown): asked once, never again
  addr   BLOB    PRIMARY KEY, -- contract address
  height INTEGER NOT NULL     -- block where that was found
) WITHOUT ROWID;
