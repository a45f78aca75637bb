-- rollgate indexer schema, version 9 (PostgreSQL): the identity of the chain the store holds.
-- Same table as the SQLite twin; the descriptions live in COMMENT ON.

CREATE TABLE chain_identity (
  id             integer PRIMARY KEY CHECK (id = 1),
  chain_id       text   NOT NULL,
  first_height   bigint NOT NULL,
  first_hash     bytea  NOT NULL,
  initial_height bigint,
  initial_hash   bytea
);
COMMENT ON TABLE chain_identity IS 'one row once a block is stored: which chain the store holds, so a reset chain, a repointed node or a fork never mixes into it';
COMMENT ON COLUMN chain_identity.id IS 'always 1, so the table can hold one row only';
COMMENT ON COLUMN chain_identity.chain_id IS 'header.chain_id of the first stored block';
COMMENT ON COLUMN chain_identity.first_height IS 'height of the first block ever stored (pruning does not move it)';
COMMENT ON COLUMN chain_identity.first_hash IS 'block_id.hash of that block';
COMMENT ON COLUMN chain_identity.initial_height IS 'the chain''s initial height when ingestion started above it and the node served that block; NULL otherwise';
COMMENT ON COLUMN chain_identity.initial_hash IS 'block_id.hash at initial_height; NULL with it';
-- A store indexed before this migration: its first retained block stands for the chain.
INSERT INTO chain_identity (id, chain_id, first_height, first_hash)
  SELECT 1, b.chain_id, b.height, b.hash FROM indexed_height i JOIN block b ON b.height = i.first_height WHERE i.height > 0;
