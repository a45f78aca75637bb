package track

import (
	"context"
	"fmt"
	"time"
)

// ChainReach is one followed chain's RPC as the router's /readyz reports it: reachable, or
// which URLs have not answered since when (the chain's reach.Watch, fed by every scan and
// probe).
type ChainReach struct {
	ChainID   string `json:"chain_id"`
	Reachable bool   `json:"reachable"`
	// Unreachable are the chain's RPC URLs failing for 10 s or more without a success.
	Unreachable []string   `json:"unreachable_urls,omitempty"`
	Since       *time.Time `json:"unreachable_since,omitempty"`
	Error       string     `json:"error,omitempty"`
}

// Ready reports whether the tracker's store answers (one round trip on a read connection).
func (t *Tracker) Ready(ctx context.Context) error {
	if err := t.st.Ping(ctx); err != nil {
		return fmt.Errorf("track store: %w", err)
	}
	return nil
}

// Reachability lists the chains the tracker follows (every Cosmos chain of the registry with
// an RPC), in registry order, with their RPCs' reachability. A chain not tried yet counts as
// reachable.
func (t *Tracker) Reachability() []ChainReach {
	var out []ChainReach
	for _, c := range t.live.Current().Chains {
		if _, err := t.client(c.ID); err != nil {
			continue // not followed (EVM, no RPC)
		}
		t.rpcMu.Lock()
		w := t.watches[c.ID]
		t.rpcMu.Unlock()
		r := ChainReach{ChainID: c.ID, Reachable: true}
		if w != nil {
			if st := w.State(); len(st.Unreachable) > 0 {
				since := st.Since.UTC()
				r.Reachable, r.Unreachable, r.Since, r.Error = false, st.Unreachable, &since, st.LastError
			}
		}
		out = append(out, r)
	}
	return out
}
