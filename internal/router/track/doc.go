// Package track is the router's transfer tracker (/v2/tx/track, /v2/tx/status, /v2/tx/submit).
//
// A registered (chain, tx hash) is followed hop by hop until a terminal state: IBC packets by
// their keys (port/channel/sequence on the sender = on the receiver), through packet-forward
// hops (the next send_packet in the same message as the receipt), acknowledgements (success or
// error, read from the receiver's write_acknowledgement), timeouts and refunds; OPinit deposits
// by bridge id and L1 sequence (finalize_token_deposit on the rollup, its hook and what the hook
// sent on, or the refund withdrawal of a failed deposit); OPinit withdrawals by L2 sequence
// through the executor's proof, the L1 output and its finalization period to the L1 claim.
//
// The chains are followed by scanning their blocks (one /status and one batched /block +
// /block_results request per pass and chain; real nodes index too few attributes for
// tx_search), storing every bridge event in the Store. A transfer's status is a pure function of
// the stored events, computed again whenever an event it waits for arrives, so the upstream cost
// does not grow with the number of transfers, a restart resumes from the stored cursors, and
// replicas sharing one PostgreSQL split the work by leases (chains to scan, transfers to
// evaluate; transfers are claimed with FOR UPDATE SKIP LOCKED).
package track
