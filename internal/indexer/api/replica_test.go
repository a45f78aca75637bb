package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// standbyReader is a real store that reports a chosen replication state.
type standbyReader struct {
	store.Reader
	state store.ReplicaState
	err   error
}

func (s standbyReader) ReplicaState(context.Context) (store.ReplicaState, error) {
	return s.state, s.err
}

// TestReadyzReplicaLag: an API on a hot standby is unready (REPLICA_LAG, with Retry-After)
// only while the standby replays more than MaxReplicaLag behind; a primary never is. The
// end-to-end proof on a real standby with paused replay is replicatest.TestReplicasOnHotStandby.
func TestReadyzReplicaLag(t *testing.T) {
	db := backends(t)["sqlite"](t)
	for _, tc := range []struct {
		name       string
		state      store.ReplicaState
		err        error
		bound      time.Duration
		status     int
		wantDetail string
	}{
		{"primary", store.ReplicaState{Lag: time.Hour}, nil, time.Second, 200, ""},
		{"standby_current", store.ReplicaState{Standby: true}, nil, time.Second, 200, ""},
		{"standby_within_bound", store.ReplicaState{Standby: true, Lag: 900 * time.Millisecond}, nil, time.Second, 200, ""},
		{"standby_behind", store.ReplicaState{Standby: true, Lag: 5 * time.Second}, nil, time.Second, 503, "REPLICA_LAG"},
		{"standby_paused_behind", store.ReplicaState{Standby: true, Paused: true, Lag: 5 * time.Second}, nil, time.Second, 503, "REPLICA_LAG"},
		{"check_off", store.ReplicaState{Standby: true, Lag: time.Hour}, nil, 0, 200, ""},
		{"state_unreadable", store.ReplicaState{}, syscall.ECONNREFUSED, time.Second, 503, "STORE_UNAVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testCfg
			cfg.MaxReplicaLag = tc.bound
			rec := do(New(cfg, standbyReader{db, tc.state, tc.err}, nil, nil), "/readyz")
			if rec.Code != tc.status {
				t.Fatalf("%d: %s", rec.Code, rec.Body)
			}
			if tc.status == 200 {
				return
			}
			var body struct {
				Message string   `json:"message"`
				Details []string `json:"details"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Details) != 1 || body.Details[0] != tc.wantDetail || rec.Header().Get("Retry-After") == "" {
				t.Errorf("body %s (Retry-After %q), want details [%s] and Retry-After", rec.Body, rec.Header().Get("Retry-After"), tc.wantDetail)
			}
			if tc.state.Paused && !strings.Contains(body.Message, "paused") {
				t.Errorf("message %q does not say replay is paused", body.Message)
			}
		})
	}
}

// awayReader is a real store whose block reads fail with err.
type awayReader struct {
	store.Reader
	err error
}

func (a awayReader) Block(context.Context, int64) (store.Block, error) { return store.Block{}, a.err }

// TestStoreAwayIs503: a read that fails because the database is away (connection refused or
// reset, server shutting down) answers 503 STORE_UNAVAILABLE with Retry-After, never a 500
// and never the cause's text; any other failure stays a 500.
func TestStoreAwayIs503(t *testing.T) {
	db := backends(t)["sqlite"](t)
	for _, tc := range []struct {
		name   string
		err    error
		status int
	}{
		{"refused", fmt.Errorf("read block: %w", syscall.ECONNREFUSED), 503},
		{"reset", fmt.Errorf("read block: %w", syscall.ECONNRESET), 503},
		{"other", errors.New("read block: syntax error at SELECT secret"), 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(New(testCfg, awayReader{db, tc.err}, nil, nil), "/indexer/block/v1/blocks/1")
			if rec.Code != tc.status {
				t.Fatalf("%d: %s", rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "read block") {
				t.Errorf("the cause reached the client: %s", rec.Body)
			}
			if ra := rec.Header().Get("Retry-After"); (tc.status == http.StatusServiceUnavailable) != (ra != "") {
				t.Errorf("status %d with Retry-After %q", rec.Code, ra)
			}
			if tc.status == 503 && !strings.Contains(rec.Body.String(), "STORE_UNAVAILABLE") {
				t.Errorf("body %s, want STORE_UNAVAILABLE", rec.Body)
			}
		})
	}
}
