package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/track"
)

// TestClient checks the client against a fake router: error answers become *Error with the
// machine reason, and Wait polls until a terminal status, reporting each change once.
func TestClient(t *testing.T) {
	var polls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/tx/track", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":5,"message":"chain ID not supported: x","details":["UNKNOWN_CHAIN"],"info":"see /v2/info/chains"}`))
	})
	mux.HandleFunc("GET /v2/tx/status", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("tx_hash") != "AB" || r.URL.Query().Get("chain_id") != "c-1" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
		s := track.StatusResponse{State: track.StatePending, Status: track.StatePending}
		if n := polls.Add(1); n >= 3 {
			s.State, s.Status = track.StateCompletedSuccess, track.StatusCompleted
		}
		_ = json.NewEncoder(w).Encode(s)
	})
	mux.HandleFunc("POST /v2/tx/submit", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tx      string `json:"tx"`
			ChainID string `json:"chain_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		_ = json.NewEncoder(w).Encode(track.TrackResponse{TxHash: req.Tx + "/" + req.ChainID})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := New(srv.URL + "/")
	ctx := context.Background()

	_, err := c.Track(ctx, "x", "AB")
	if e, ok := errors.AsType[*Error](err); !ok || e.HTTPStatus != 404 || e.Code != 5 || Reason(err) != "UNKNOWN_CHAIN" || e.Info == "" {
		t.Fatalf("track error: %#v", err)
	}
	sub, err := c.Submit(ctx, "c-1", []byte("tx"))
	if err != nil || sub.TxHash != "dHg=/c-1" {
		t.Fatalf("submit: %+v %v", sub, err)
	}
	var changes int
	s, err := c.Wait(ctx, "c-1", "AB", time.Millisecond, func(*track.StatusResponse) { changes++ })
	if err != nil || s.Status != track.StatusCompleted || polls.Load() != 3 || changes != 2 {
		t.Fatalf("wait: %+v %v after %d polls, %d changes", s, err, polls.Load(), changes)
	}
}

// TestWaitEndsOnEveryTerminalState: Wait stops on each terminal state whatever the coarse
// status says (a router answers STATE_COMPLETED on failures too), and not before: a
// STATE_PENDING_ERROR (refund on its way) keeps it polling.
func TestWaitEndsOnEveryTerminalState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		states []string // the answers in order; Wait must return on the last
	}{
		{"success", []string{track.StateSubmitted, track.StatePending, track.StateCompletedSuccess}},
		{"error after pending error", []string{track.StatePending, track.StatePendingError, track.StatePendingError, track.StateCompletedError}},
		{"abandoned", []string{track.StateSubmitted, track.StateAbandoned}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var polls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(polls.Add(1)) - 1
				if n >= len(tc.states) {
					t.Errorf("polled again after %s", tc.states[len(tc.states)-1])
					n = len(tc.states) - 1
				}
				st := tc.states[n]
				_ = json.NewEncoder(w).Encode(track.StatusResponse{State: st, Status: track.StatusOf(st)})
			}))
			defer srv.Close()
			s, err := New(srv.URL).Wait(context.Background(), "c-1", "AB", time.Millisecond, nil)
			last := tc.states[len(tc.states)-1]
			if err != nil || s.State != last || s.Status != track.StatusCompleted || int(polls.Load()) != len(tc.states) {
				t.Fatalf("wait: %+v %v after %d polls", s, err, polls.Load())
			}
		})
	}
}
