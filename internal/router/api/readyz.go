package api

import (
	"context"
	"net/http"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/router/track"
)

// readinessReporter is what the tracker (track.Tracker) adds to Tracker for /readyz.
type readinessReporter interface {
	Ready(ctx context.Context) error
	Reachability() []track.ChainReach
}

// readyTimeout bounds the tracking store's probe: a store that hangs is unready, not a hung
// readiness probe.
const readyTimeout = 2 * time.Second

// readyz is the router's readiness: its registry is loaded (routes can be computed) and,
// with tracking on, the tracking store answers. Chains whose RPC does not answer are listed
// (chains[].reachable false) but leave the router ready: it still routes, and tracks every
// other chain; their transfers' statuses advance again once the RPC is back. So do chains
// whose scan is halted because their node serves another chain (chains[].state "halted",
// reason CHAIN_MISMATCH, counted in chains_halted) or is behind (UPSTREAM_BEHIND): one
// chain's node must not take the router out of service.
func (s *server) readyz(r *http.Request) (any, error) {
	reg := s.live.Current()
	if reg == nil || len(reg.Chains) == 0 {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: no chain in the registry", Details: []string{"REGISTRY_EMPTY"}, Expected: true}
	}
	sum := reg.Summary()
	body := map[string]any{"status": "ready",
		"registry": map[string]int{"chains": sum.Chains, "assets": sum.Assets, "open_channels": sum.OpenChannels},
		"tracking": "off"}
	if s.cfg.Tracker == nil {
		return body, nil
	}
	body["tracking"] = "on"
	rr, ok := s.cfg.Tracker.(readinessReporter)
	if !ok {
		return body, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := rr.Ready(ctx); err != nil {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: "not ready: tracking store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	}
	chains := rr.Reachability()
	if chains == nil {
		chains = []track.ChainReach{}
	}
	reachable, halted := 0, 0
	for _, c := range chains {
		if c.Reachable {
			reachable++
		}
		if c.Reason == track.ReasonChainMismatch {
			halted++
		}
	}
	body["chains_reachable"], body["chains_halted"], body["chains"] = reachable, halted, chains
	return body, nil
}
