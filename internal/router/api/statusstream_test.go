package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// steppedTracker is fakeTracker whose status of the known tx is the stage the test sets, as
// a tracker advancing a transfer would report it.
type steppedTracker struct {
	fakeTracker
	stage atomic.Int32
	docs  []string
}

func (s *steppedTracker) Status(ctx context.Context, chainID, hash string) (json.RawMessage, error) {
	if _, err := s.fakeTracker.Status(ctx, chainID, hash); err != nil {
		return nil, err
	}
	return json.RawMessage(s.docs[s.stage.Load()]), nil
}

var transferStages = []string{
	`{"state":"STATE_SUBMITTED","status":"STATE_SUBMITTED","transfer_sequence":[]}`,
	`{"state":"STATE_PENDING","status":"STATE_PENDING","transfer_sequence":[{"ibc_transfer":{"state":"TRANSFER_PENDING"}}]}`,
	`{"state":"STATE_PENDING","status":"STATE_PENDING","transfer_sequence":[{"ibc_transfer":{"state":"TRANSFER_RECEIVED"}}]}`,
	`{"state":"STATE_COMPLETED_SUCCESS","status":"STATE_COMPLETED","transfer_sequence":[{"ibc_transfer":{"state":"TRANSFER_SUCCESS"}}]}`,
}

func TestTxStatusStream(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	ft := &steppedTracker{docs: transferStages}
	srv := httptest.NewServer(New(Config{Tracker: ft, StatusStreamPoll: 10 * time.Millisecond}, registry.NewLive(reg), nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	q := "?chain_id=initia-devnet-1&tx_hash=" + knownHash

	poll := func() string {
		resp, err := http.Get(srv.URL + "/v2/tx/status" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b))
	}
	resp, err := http.Get(srv.URL + "/v2/tx/status/stream" + q)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rd := sse.NewReader(resp.Body)
	// Each stage is held until the stream has sent it (a state shorter than the stream's poll
	// could be missed, by polling as much as by the stream); the stream sends it once.
	for i := range transferStages {
		ft.stage.Store(int32(i))
		polled := poll()
		ev, err := nextWithin(rd, 10*time.Second)
		if err != nil || ev.Name != "status" || string(ev.Data) != polled {
			t.Fatalf("stage %d: %+v %v, polling saw %s", i, ev, err, polled)
		}
		time.Sleep(30 * time.Millisecond) // several polls of the stream: nothing new to send
	}
	if ev, err := nextWithin(rd, 10*time.Second); !errors.Is(err, io.EOF) {
		t.Errorf("after the terminal state %+v %v, want the end of the stream", ev, err)
	}

	for _, tc := range []struct {
		query  string
		status int
		reason string
	}{
		{"?chain_id=initia-devnet-1", 400, "MISSING_FIELD"},
		{"?tx_hash=" + knownHash, 400, "MISSING_FIELD"},
		{"?chain_id=initia-devnet-1&tx_hash=zz", 400, ReasonInvalidTxHash},
		{"?chain_id=initia-devnet-1&tx_hash=" + strings.Repeat("00", 32), 404, ReasonTxNotFound},
	} {
		resp, err := http.Get(srv.URL + "/v2/tx/status/stream" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !bytes.Contains(b, []byte(tc.reason)) {
			t.Errorf("%s: %d %s", tc.query, resp.StatusCode, b)
		}
	}
}

func TestTerminal(t *testing.T) {
	for doc, want := range map[string]bool{
		transferStages[0]: false,
		transferStages[1]: false,
		transferStages[3]: true,
		`{"state":"STATE_COMPLETED_ERROR","status":"STATE_COMPLETED"}`: true,
		`{"state":"STATE_ABANDONED","status":"STATE_COMPLETED"}`:       true,
		`{"state":"STATE_ABANDONED","status":"STATE_ABANDONED"}`:       true,
		`not json`: false,
	} {
		if got := terminal([]byte(doc)); got != want {
			t.Errorf("terminal(%s) = %v", doc, got)
		}
	}
}
