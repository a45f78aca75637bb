-- rollgate indexer schema, version 7 (SQLite): how many live tokens each owner holds in each
-- collection, so collections/by_account reads an owner's few collections instead of walking every
-- token the owner holds (a marketplace or bridge escrow holds hundreds of thousands). Kept in the
-- same transaction as the nft rows.

CREATE TABLE nft_owner_collection ( -- one row per (owner, collection) with at least one live token
  owner           BLOB    NOT NULL, -- owner's raw address bytes, as nft.owner
  collection_addr BLOB    NOT NULL, -- collection address
  n               INTEGER NOT NULL, -- the owner's live tokens in the collection (> 0; a row reaching 0 is deleted)
  PRIMARY KEY (owner, collection_addr)
) WITHOUT ROWID;

INSERT INTO nft_owner_collection SELECT owner, collection_addr, COUNT(*) FROM nft GROUP BY owner, collection_addr;
