-- rollgate indexer schema, version 2 (PostgreSQL): NFT collections, tokens and their tx history.
-- Same tables as the SQLite twin; the descriptions live in COMMENT ON.

CREATE TABLE nft_collection (
  addr        bytea  PRIMARY KEY,
  height      bigint NOT NULL,
  time_ns     bigint NOT NULL,
  name        text   NOT NULL,
  origin_name text   NOT NULL DEFAULT '',
  name_norm   text   NOT NULL,
  origin_norm text   NOT NULL DEFAULT '',
  creator     bytea  NOT NULL,
  nft_count   bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX nft_collection_height ON nft_collection (height, addr);
COMMENT ON TABLE nft_collection IS 'one row per NFT collection';
COMMENT ON COLUMN nft_collection.addr IS 'collection address: Move collection object (32 bytes), EVM contract (20), Wasm contract (32)';
COMMENT ON COLUMN nft_collection.height IS 'creation block (EVM: block of the first tx touching the contract; Wasm: first CW721 event)';
COMMENT ON COLUMN nft_collection.time_ns IS 'that block''s time in nanoseconds since the Unix epoch, UTC';
COMMENT ON COLUMN nft_collection.name IS 'collection name as the chain reports it';
COMMENT ON COLUMN nft_collection.origin_name IS 'L1 class name of a collection received over ICS-721; empty otherwise';
COMMENT ON COLUMN nft_collection.name_norm IS 'name with everything but letters, marks and digits removed, lowercased (by_name search)';
COMMENT ON COLUMN nft_collection.origin_norm IS 'the same for origin_name';
COMMENT ON COLUMN nft_collection.creator IS 'creator''s raw address bytes; empty when unknown';
COMMENT ON COLUMN nft_collection.nft_count IS 'live tokens of the collection (burned ones are gone)';

CREATE TABLE nft_dict (
  id              bigint PRIMARY KEY,
  collection_addr bytea  NOT NULL,
  token_id        text   COLLATE "C" NOT NULL,
  tx_count        bigint NOT NULL DEFAULT 0,
  UNIQUE (collection_addr, token_id)
);
COMMENT ON TABLE nft_dict IS 'dictionary of every token ever seen, so its tx history survives a burn and a re-mint';
COMMENT ON COLUMN nft_dict.id IS 'dictionary id, assigned on first sight (gapless, by the writer)';
COMMENT ON COLUMN nft_dict.tx_count IS 'number of nft_txs rows of the token (= its highest ord)';

CREATE TABLE nft (
  collection_addr bytea  NOT NULL,
  token_id        text   COLLATE "C" NOT NULL,
  nft_id          bigint NOT NULL,
  object_addr     bytea  NOT NULL,
  owner           bytea  NOT NULL,
  uri             text   NOT NULL,
  height          bigint NOT NULL,
  time_ns         bigint NOT NULL,
  PRIMARY KEY (collection_addr, token_id)
);
CREATE UNIQUE INDEX nft_owner_token ON nft (owner, token_id, height, collection_addr);
CREATE UNIQUE INDEX nft_owner_height ON nft (owner, height, token_id, collection_addr);
CREATE UNIQUE INDEX nft_collection_height_token ON nft (collection_addr, height, token_id);
CREATE INDEX nft_object ON nft (object_addr) WHERE object_addr <> '\x'::bytea;
COMMENT ON TABLE nft IS 'one row per live token';
COMMENT ON COLUMN nft.nft_id IS 'nft_dict id';
COMMENT ON COLUMN nft.object_addr IS 'Move: the NFT object''s address (32 bytes); EVM and Wasm: empty';
COMMENT ON COLUMN nft.owner IS 'owner''s raw address bytes';
COMMENT ON COLUMN nft.uri IS 'token URI (NUL bytes removed)';
COMMENT ON COLUMN nft.height IS 'block of the last mint, transfer or URI change';
COMMENT ON COLUMN nft.time_ns IS 'that block''s time in nanoseconds since the Unix epoch, UTC';

CREATE TABLE nft_txs (
  nft_id   bigint NOT NULL,
  sequence bigint NOT NULL,
  ord      bigint NOT NULL,
  PRIMARY KEY (nft_id, sequence)
);
CREATE UNIQUE INDEX nft_txs_ord ON nft_txs (nft_id, ord) INCLUDE (sequence);
COMMENT ON TABLE nft_txs IS 'edge: which txs minted, moved, changed or burned a token (EVM and Wasm; Move history goes through tx_accounts of the NFT object)';
COMMENT ON COLUMN nft_txs.ord IS '1-based rank of the tx among the token''s txs, so an offset is a key (index nft_txs_ord)';

CREATE TABLE nft_not_collection (
  addr   bytea  PRIMARY KEY,
  height bigint NOT NULL
);
COMMENT ON TABLE nft_not_collection IS 'contracts that emitted ERC-721-shaped logs or CW721-shaped events but are no NFT collection (name() reverts, contract_info unknown): asked once, never again';
