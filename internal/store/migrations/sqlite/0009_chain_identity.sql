-- rollgate indexer schema, version 9 (SQLite): the identity of the chain the store holds, so
-- a chain that was reset, a node repointed at another network with the same chain id or a
-- fork never mixes into the store. Ingestion compares it (and the stored block hashes) with
-- what the node serves at start and on every write.

CREATE TABLE chain_identity ( -- one row once a block is stored: which chain the store holds
  id             INTEGER PRIMARY KEY CHECK (id = 1), -- always 1, so the table can hold one row only
  chain_id       TEXT    NOT NULL, -- header.chain_id of the first stored block
  first_height   INTEGER NOT NULL, -- height of the first block ever stored (pruning does not move it)
  first_hash     BLOB    NOT NULL, -- block_id.hash of that block
  initial_height INTEGER,          -- the chain's initial height when ingestion started above it and the node served that block; NULL otherwise
  initial_hash   BLOB              -- block_id.hash at initial_height; NULL with it
);
-- A store indexed before this migration: its first retained block stands for the chain.
INSERT INTO chain_identity (id, chain_id, first_height, first_hash)
  SELECT 1, b.chain_id, b.height, b.hash FROM indexed_height i JOIN block b ON b.height = i.first_height WHERE i.height > 0;
