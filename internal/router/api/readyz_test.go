package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
)

// readyTracker is a Tracker with the tracker's readiness, set by the test.
type readyTracker struct {
	Tracker
	storeErr error
	chains   []track.ChainReach
}

func (r readyTracker) Ready(context.Context) error      { return r.storeErr }
func (r readyTracker) Reachability() []track.ChainReach { return r.chains }

// TestReadyz: the router is ready once its registry is loaded and, with tracking on, its
// tracking store answers; chains whose RPC does not answer are listed and leave it ready.
func TestReadyz(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	down := []track.ChainReach{{ChainID: l1, Reachable: true, State: track.ChainScanning},
		{ChainID: "minimove-devnet-1", Unreachable: []string{"http://127.0.0.1:1"}, Since: &since, Error: "connection refused", State: track.ChainScanning},
		{ChainID: "miniwasm-devnet-1", Reachable: true, State: track.ChainHalted, Reason: track.ReasonChainMismatch,
			Mismatch: &track.ChainMismatch{Reason: track.ReasonChainMismatch, Height: 11, StoredHeight: 10, StoredHash: "AA", NodeHash: "BB"}}}
	for _, tc := range []struct {
		name     string
		tracker  Tracker
		status   int
		reason   string
		tracking string
		chains   int // reachable, of len(down)
	}{
		{"tracking off", nil, 200, "", "off", -1},
		{"a chain unreachable, one halted", readyTracker{chains: down}, 200, "", "on", 2},
		{"tracking store down", readyTracker{storeErr: errors.New("connection refused"), chains: down}, 503, "STORE_UNAVAILABLE", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Config{Tracker: tc.tracker}, registry.NewLive(reg), nil, prometheus.NewRegistry())
			code, b := do(t, h, http.MethodGet, "/readyz", nil)
			if code != tc.status {
				t.Fatalf("status %d, want %d: %s", code, tc.status, b)
			}
			var body struct {
				Status, Tracking string
				Details          []string
				Registry         struct{ Chains int }
				ChainsReachable  *int `json:"chains_reachable"`
				ChainsHalted     *int `json:"chains_halted"`
				Chains           []track.ChainReach
			}
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatal(err)
			}
			if tc.status != 200 {
				if len(body.Details) != 1 || body.Details[0] != tc.reason {
					t.Errorf("details %v, want %s: %s", body.Details, tc.reason, b)
				}
				return
			}
			if body.Status != "ready" || body.Tracking != tc.tracking || body.Registry.Chains != len(reg.Chains) {
				t.Errorf("body %s", b)
			}
			if tc.chains >= 0 && (body.ChainsReachable == nil || *body.ChainsReachable != tc.chains || len(body.Chains) != len(down) ||
				body.Chains[1].Reachable || body.Chains[1].Since == nil || !body.Chains[1].Since.Equal(since)) {
				t.Errorf("chains: %s", b)
			}
			if tc.chains >= 0 && (body.ChainsHalted == nil || *body.ChainsHalted != 1 || body.Chains[2].State != track.ChainHalted ||
				body.Chains[2].Reason != track.ReasonChainMismatch || body.Chains[2].Mismatch == nil || body.Chains[2].Mismatch.NodeHash != "BB") {
				t.Errorf("halted chain: %s", b)
			}
		})
	}
}
