-- rollgate indexer schema, version 5 (PostgreSQL): rank buckets of the token lists. Same
-- tables as the SQLite twin; the descriptions live in COMMENT ON.

CREATE TABLE nft_rank_token (
  kind     smallint NOT NULL,
  scope    bytea    NOT NULL,
  token_id text     COLLATE "C" NOT NULL,
  height   bigint   NOT NULL,
  coll     bytea    NOT NULL,
  n        bigint   NOT NULL,
  PRIMARY KEY (kind, scope, token_id, height, coll)
);
COMMENT ON TABLE nft_rank_token IS 'buckets of the token lists in token_id order, so an offset page is a seek plus a short skip';
COMMENT ON COLUMN nft_rank_token.kind IS '0: a collection''s tokens, 1: an owner''s tokens';
COMMENT ON COLUMN nft_rank_token.scope IS 'the collection address or the owner';
COMMENT ON COLUMN nft_rank_token.token_id IS 'first key of the bucket: token_id, height, collection (empty, -1, empty for the first bucket)';
COMMENT ON COLUMN nft_rank_token.n IS 'live tokens from this key up to the next bucket''s';

CREATE TABLE nft_rank_height (
  kind     smallint NOT NULL,
  scope    bytea    NOT NULL,
  height   bigint   NOT NULL,
  token_id text     COLLATE "C" NOT NULL,
  coll     bytea    NOT NULL,
  n        bigint   NOT NULL,
  PRIMARY KEY (kind, scope, height, token_id, coll)
);
COMMENT ON TABLE nft_rank_height IS 'buckets of the token lists in height order, so an offset page is a seek plus a short skip';
COMMENT ON COLUMN nft_rank_height.kind IS '0: a collection''s tokens, 1: an owner''s tokens';
COMMENT ON COLUMN nft_rank_height.height IS 'first key of the bucket: height, token_id, collection (-1, empty, empty for the first bucket)';
COMMENT ON COLUMN nft_rank_height.n IS 'live tokens from this key up to the next bucket''s';

-- A store indexed before this migration starts with one bucket per list; the writer splits a
-- bucket the next time a token lands in it.
INSERT INTO nft_rank_token SELECT 0, collection_addr, '', -1, '\x'::bytea, COUNT(*) FROM nft GROUP BY collection_addr;
INSERT INTO nft_rank_token SELECT 1, owner, '', -1, '\x'::bytea, COUNT(*) FROM nft GROUP BY owner;
INSERT INTO nft_rank_height SELECT 0, collection_addr, -1, '', '\x'::bytea, COUNT(*) FROM nft GROUP BY collection_addr;
INSERT INTO nft_rank_height SELECT 1, owner, -1, '', '\x'::bytea, COUNT(*) FROM nft GROUP BY owner;
