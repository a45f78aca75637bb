package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/track"
)

// TestWaitStreams checks that Wait follows /v2/tx/status/stream, reopens it after a
// reconnect event, reports each change once, and never polls while the stream serves.
func TestWaitStreams(t *testing.T) {
	var polls, opens atomic.Int32
	status := func(state, st string) string {
		b, _ := json.Marshal(track.StatusResponse{State: state, Status: st})
		return string(b)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/tx/status", func(w http.ResponseWriter, r *http.Request) {
		polls.Add(1)
		_ = json.NewEncoder(w).Encode(track.StatusResponse{State: track.StatePending, Status: track.StatePending})
	})
	mux.HandleFunc("GET /v2/tx/status/stream", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("tx_hash") != "AB" || r.URL.Query().Get("chain_id") != "c-1" {
			t.Errorf("query %s", r.URL.RawQuery)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		pending := status(track.StatePending, track.StatePending)
		if opens.Add(1) == 1 {
			// The server goes down mid-transfer.
			fmt.Fprintf(w, ": ok\n\nevent: status\nid: 1\ndata: %s\n\nevent: reconnect\ndata: {\"reason\":\"server shutting down\"}\n\n", pending)
			return
		}
		fmt.Fprintf(w, "event: status\nid: 1\ndata: %s\n\n: heartbeat\n\nevent: status\nid: 2\ndata: %s\n\n", pending,
			status(track.StateCompletedSuccess, track.StatusCompleted))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var changes []string
	s, err := New(srv.URL).Wait(ctx, "c-1", "AB", time.Millisecond, func(s *track.StatusResponse) { changes = append(changes, s.State) })
	if err != nil || s.State != track.StateCompletedSuccess {
		t.Fatalf("wait: %+v %v", s, err)
	}
	if polls.Load() != 0 || opens.Load() != 2 || len(changes) != 2 || changes[0] != track.StatePending || changes[1] != track.StateCompletedSuccess {
		t.Errorf("%d polls, %d streams opened, changes %v", polls.Load(), opens.Load(), changes)
	}
}

func TestTerminal(t *testing.T) {
	for _, tc := range []struct {
		state, status string
		want          bool
	}{
		{track.StatePending, track.StatePending, false},
		{track.StateCompletedSuccess, track.StatusCompleted, true},
		{track.StateCompletedError, track.StatusCompleted, true},
		{track.StateAbandoned, track.StatusCompleted, true},
		{track.StateAbandoned, track.StateAbandoned, true},
		{track.StateCompletedError, statusFailedLegacy, true},
		{"", statusFailedLegacy, true},
	} {
		if got := Terminal(&track.StatusResponse{State: tc.state, Status: tc.status}); got != tc.want {
			t.Errorf("Terminal(%s, %s) = %v", tc.state, tc.status, got)
		}
	}
}
