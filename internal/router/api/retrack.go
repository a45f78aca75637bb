package api

import "net/http"

// txRetryTrack answers POST /v2/tx/retry_track {tx_hash, chain_id}, which Skip's explorer sends
// when a status says tracking was abandoned (skip-mev/skip-go@fa6095e:apps/explorer/src/app/page.tsx,
// onReindex; the body is the /v2/tx/track body). An abandoned transfer is tracked afresh; any
// other registered one is left as it is; the answer is /v2/tx/track's (track.Tracker.Retry).
// An unregistered hash is 404 TX_NOT_FOUND: there is nothing to retry, /v2/tx/track registers.
func (s *server) txRetryTrack(r *http.Request) (any, error) {
	return s.byHash(r, Tracker.Retry)
}
