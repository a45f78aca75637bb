-- rollgate indexer schema, version 7 (PostgreSQL): live tokens per owner and collection. Same
-- table as the SQLite twin; the descriptions live in COMMENT ON.

CREATE TABLE nft_owner_collection (
  owner           bytea  NOT NULL,
  collection_addr bytea  NOT NULL,
  n               bigint NOT NULL,
  PRIMARY KEY (owner, collection_addr)
);
COMMENT ON TABLE nft_owner_collection IS 'one row per (owner, collection) with at least one live token, so collections/by_account reads an owner''s few collections instead of walking every token the owner holds';
COMMENT ON COLUMN nft_owner_collection.owner IS 'owner''s raw address bytes, as nft.owner';
COMMENT ON COLUMN nft_owner_collection.n IS 'the owner''s live tokens in the collection (> 0; a row reaching 0 is deleted)';

INSERT INTO nft_owner_collection SELECT owner, collection_addr, COUNT(*) FROM nft GROUP BY owner, collection_addr;
