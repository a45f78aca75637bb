-- rollgate indexer schema, version 9 (PostgreSQL): the search route's name prefix. Same
-- indexes as the SQLite twin; the normalised names take the "C" collation so that a prefix is
-- a byte range of the index whatever the database's default collation.

ALTER TABLE nft_collection ALTER COLUMN name_norm TYPE TEXT COLLATE "C";
ALTER TABLE nft_collection ALTER COLUMN origin_norm TYPE TEXT COLLATE "C";
CREATE INDEX nft_collection_name_norm ON nft_collection (name_norm, height, addr);
COMMENT ON INDEX nft_collection_name_norm IS 'search: collections by name prefix, oldest first (a range name_norm >= p AND name_norm < p'')';
CREATE INDEX nft_collection_origin_norm ON nft_collection (origin_norm, height, addr) WHERE origin_norm <> '';
COMMENT ON INDEX nft_collection_origin_norm IS 'the same for L1 class names of ICS-721 collections';
