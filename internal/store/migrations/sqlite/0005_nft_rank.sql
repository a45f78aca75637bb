-- rollgate indexer schema, version 5 (SQLite): rank buckets of the token lists, so an offset
-- page of tokens/by_collection or tokens/by_account is a seek plus a short skip, not a skip over
-- every earlier token. Each list (a collection's or an owner's tokens, in token_id or height
-- order) is cut into buckets of consecutive keys; a bucket row holds its first key and how many
-- live tokens fall in it. Kept in the same transaction as the nft rows they count.

CREATE TABLE nft_rank_token ( -- buckets of the lists in token_id order
  kind     INTEGER NOT NULL, -- 0: a collection's tokens, 1: an owner's tokens
  scope    BLOB    NOT NULL, -- the collection address or the owner
  token_id TEXT    NOT NULL, -- first key of the bucket: token_id, height, collection ('', -1, X'' for the first bucket)
  height   INTEGER NOT NULL,
  coll     BLOB    NOT NULL,
  n        INTEGER NOT NULL, -- live tokens from this key up to the next bucket's
  PRIMARY KEY (kind, scope, token_id, height, coll)
) WITHOUT ROWID;

CREATE TABLE nft_rank_height ( -- buckets of the lists in height order
  kind     INTEGER NOT NULL, -- 0: a collection's tokens, 1: an owner's tokens
  scope    BLOB    NOT NULL, -- the collection address or the owner
  height   INTEGER NOT NULL, -- first key of the bucket: height, token_id, collection (-1, '', X'' for the first bucket)
  token_id TEXT    NOT NULL,
  coll     BLOB    NOT NULL,
  n        INTEGER NOT NULL, -- live tokens from this key up to the next bucket's
  PRIMARY KEY (kind, scope, height, token_id, coll)
) WITHOUT ROWID;

-- A store indexed before this migration starts with one bucket per list; the writer splits a
-- bucket the next time a token lands in it.
INSERT INTO nft_rank_token SELECT 0, collection_addr, '', -1, X'', COUNT(*) FROM nft GROUP BY collection_addr;
INSERT INTO nft_rank_token SELECT 1, owner, '', -1, X'', COUNT(*) FROM nft GROUP BY owner;
INSERT INTO nft_rank_height SELECT 0, collection_addr, -1, '', X'', COUNT(*) FROM nft GROUP BY collection_addr;
INSERT INTO nft_rank_height SELECT 1, owner, -1, '', X'', COUNT(*) FROM nft GROUP BY owner;
