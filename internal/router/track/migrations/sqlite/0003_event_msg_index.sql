-- rollgate transfer tracker schema, version 3 (SQLite): what one message of a tx started (the
-- forward of a received packet, a deposit hook's transfer) is read by message; relayer txs carry
-- hundreds of messages, and without msg_index in the index each lookup walked all their events.
CREATE INDEX track_event_msg ON track_event (chain_id, height, tx_index, msg_index, kind, pos);
