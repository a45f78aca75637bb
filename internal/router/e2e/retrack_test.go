package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
)

// TestTrackRetryAbandoned: a tx registered with /v2/tx/track that does not reach the chain
// within the abandon window is STATE_ABANDONED (status STATE_COMPLETED, so every client stops
// polling) and stays so when it lands later, since nothing watches for it any more;
// /v2/tx/retry_track then tracks it afresh and the transfer completes. A retry of a transfer
// that is not abandoned changes nothing, and an unregistered hash is 404.
func TestTrackRetryAbandoned(t *testing.T) {
	n := startTrackNet(t, "")
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); clock = clock.Add(d) }
	live := registry.NewLive(n.reg)
	n.tr = track.New(n.st, live, track.Config{Now: now, AbandonAfter: time.Minute, Probe: &track.RESTProber{Interval: time.Nanosecond}})
	srv := httptest.NewServer(api.New(api.Config{Tracker: n.tr}, live, nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	n.router = srv.URL

	receiver := n.tn.addr(t, l1ID, recipientBase+9)
	raw := n.ibcTransfer(moveID, 0, l1ID, "uusdc", "4321", receiver, "", 0)
	hash := track.TxHash(raw)
	body := map[string]any{"tx_hash": hash, "chain_id": moveID}
	if st, b := n.post("/v2/tx/retry_track", body); st != http.StatusNotFound {
		t.Fatalf("retry of an unregistered tx: %d %s", st, b)
	}
	if st, b := n.post("/v2/tx/track", body); st != http.StatusOK {
		t.Fatalf("track: %d %s", st, b)
	}
	advance(2 * time.Minute)
	s, _ := n.follow(moveID, hash, terminal)
	if s.State != track.StateAbandoned || s.Status != track.StatusCompleted || len(s.Transfers) != 1 || s.Transfers[0].State != track.StateAbandoned {
		t.Fatalf("not abandoned: %+v", s)
	}

	// The tx lands after all; the abandoned transfer does not notice.
	n.broadcast(moveID, raw)
	for range 3 {
		if err := n.tn.step(n.ctx); err != nil {
			t.Fatal(err)
		}
		if err := n.tr.Step(n.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ = n.status(moveID, hash); s.State != track.StateAbandoned {
		t.Fatalf("an abandoned transfer moved on its own: %+v", s)
	}

	st, b := n.post("/v2/tx/retry_track", body)
	var res track.TrackResponse
	if st != http.StatusOK || json.Unmarshal(b, &res) != nil || res.TxHash != hash || res.ExplorerLink == "" {
		t.Fatalf("retry_track: %d %s", st, b)
	}
	s, seen := n.follow(moveID, hash, terminal)
	n.checkEnd(s, track.StateCompletedSuccess, track.StatusCompleted, l1ID, ibc("transfer/channel-1/uusdc"), "4321")
	n.checkHops(s, []hopWant{{"ibc", moveID, l1ID, track.TransferSuccess}})
	t.Logf("states after the retry %v", seen)

	// A completed transfer is left as it is.
	before, _ := n.st.Get(n.ctx, moveID, hash)
	if st, b := n.post("/v2/tx/retry_track", body); st != http.StatusOK {
		t.Fatalf("retry of a completed transfer: %d %s", st, b)
	}
	if after, _ := n.st.Get(n.ctx, moveID, hash); string(after.Doc) != string(before.Doc) || !after.Created.Equal(before.Created) || !after.Terminal {
		t.Fatalf("retry changed a completed transfer:\n%s\n%s", before.Doc, after.Doc)
	}
}
