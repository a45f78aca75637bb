-- rollgate transfer tracker schema, version 4 (SQLite): each scanned chain's identity. A chain is
-- known by its chain id (the cursor's key; every scanned header must carry it) and by the hash
-- of the last block scanned: the next block's last_block_id.hash must equal it, and at start
-- the node's block at the cursor must hash as stored. A node that answers otherwise serves
-- another chain (a reset under the same chain id, an RPC repointed at another network): its
-- scan halts and the mismatch is kept here, so every replica and every restart sees it.
ALTER TABLE track_cursor ADD COLUMN block_hash TEXT NOT NULL DEFAULT ''; -- upper-case hex of the block at height; '' before the first scanned block
ALTER TABLE track_cursor ADD COLUMN halted TEXT NOT NULL DEFAULT '';     -- the mismatch that halted the scan (JSON); '' while the chain is scanned
