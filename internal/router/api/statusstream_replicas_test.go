package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestTxStatusStreamReplicas: two router replicas on one PostgreSQL tracking store both
// stream a transfer that one replica's tracker advances (written here through the store, as
// the tracker writes it), each change once, ending at the terminal state.
func TestTxStatusStreamReplicas(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stores []*track.Store
	var urls []string
	for range 2 {
		st, err := track.OpenStore(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
		tr := track.New(st, registry.NewLive(reg), track.Config{Owner: "replica"})
		srv := httptest.NewServer(New(Config{Tracker: tr, StatusStreamPoll: 10 * time.Millisecond}, registry.NewLive(reg), nil, prometheus.NewRegistry()))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	const chain = "initia-devnet-1"
	now := time.Now()
	if _, err := stores[0].Register(ctx, chain, knownHash, "replica", now, time.Minute, []byte(transferStages[0])); err != nil {
		t.Fatal(err)
	}
	q := "/v2/tx/status/stream?chain_id=" + chain + "&tx_hash=" + knownHash
	var readers []*sse.Reader
	for _, u := range urls {
		resp, err := http.Get(u + q)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		readers = append(readers, sse.NewReader(resp.Body))
	}
	// Each stage is held until both streams have sent it: a stream reads the store once per
	// poll, so a state shorter than that could be missed, by polling as much as by the stream.
	for i, doc := range transferStages {
		if i > 0 {
			states := []string{"", track.StatePending, track.StatePending, track.StateCompletedSuccess}
			if _, err := stores[0].Update(ctx, "replica", chain, knownHash, states[i], i == len(transferStages)-1, []byte(doc), now); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.Get(urls[1] + "/v2/tx/status?chain_id=" + chain + "&tx_hash=" + knownHash)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		polled := strings.TrimSpace(string(b))
		for r, rd := range readers {
			ev, err := nextWithin(rd, 10*time.Second)
			if err != nil || ev.Name != "status" || string(ev.Data) != polled {
				t.Fatalf("stage %d, replica %d: %+v %v, polling saw %s", i, r, ev, err, polled)
			}
		}
	}
	for r, rd := range readers {
		if ev, err := nextWithin(rd, 10*time.Second); !errors.Is(err, io.EOF) {
			t.Errorf("replica %d: after the terminal state %+v %v, want the end of the stream", r, ev, err)
		}
	}
}

// nextWithin is rd.Next with a deadline.
func nextWithin(rd *sse.Reader, d time.Duration) (sse.Event, error) {
	type res struct {
		ev  sse.Event
		err error
	}
	ch := make(chan res, 1)
	go func() { ev, err := rd.Next(); ch <- res{ev, err} }()
	select {
	case r := <-ch:
		return r.ev, r.err
	case <-time.After(d):
		return sse.Event{}, context.DeadlineExceeded
	}
}
