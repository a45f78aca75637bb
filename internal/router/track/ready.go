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
	// State is the chain's scan: scanning, behind (its node's head is below the scanned
	// height: NodeHeight < ScannedHeight, reason UPSTREAM_BEHIND) or halted (its node serves
	// another chain: reason CHAIN_MISMATCH, Mismatch says where; chaincheck.go).
	State         string         `json:"state"`
	Reason        string         `json:"reason,omitempty"`
	Mismatch      *ChainMismatch `json:"mismatch,omitempty"`
	NodeHeight    int64          `json:"node_height,omitempty"`
	ScannedHeight int64          `json:"scanned_height,omitempty"`
}

// Ready reports whether the tracker's store answers (a read of the halted chains on a read
// connection, which Reachability then reports).
func (t *Tracker) Ready(ctx context.Context) error {
	if err := t.st.Ping(ctx); err != nil {
		return fmt.Errorf("track store: %w", err)
	}
	// Another replica may have halted a chain this one does not scan.
	if err := t.refreshHalted(ctx); err != nil {
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
		t.scanState(c.ID, &r)
		out = append(out, r)
	}
	return out
}
