-- rollgate transfer tracker schema, version 2 (PostgreSQL): the event lookups read the first
-- event of a key, or a tx's events, in chain order; with the order in the index the planner
-- no longer walks every event of the chain through the unique (height, tx_index, pos) index.
DROP INDEX track_event_key;
DROP INDEX track_event_tx;
CREATE INDEX track_event_key ON track_event (chain_id, kind, key, height, tx_index, pos);
CREATE INDEX track_event_tx ON track_event (chain_id, tx_hash, height, tx_index, pos);
CREATE INDEX track_transfer_owner ON track_transfer (owner, terminal); -- a replica's held transfers (lease renewal)
