-- rollgate indexer schema, version 9 (SQLite): the search route's name prefix. A prefix of a
-- normalised collection name is a range of this index (name_norm >= p AND name_norm < p'), so
-- it is a seek, not a scan of every collection; SQLite compares TEXT byte-wise (BINARY).

CREATE INDEX nft_collection_name_norm ON nft_collection (name_norm, height, addr); -- search: collections by name prefix, oldest first
CREATE INDEX nft_collection_origin_norm ON nft_collection (origin_norm, height, addr) WHERE origin_norm <> ''; -- the same for L1 class names of ICS-721 collections
