package conformance

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// busyInternalTxs is the number of call frames in the busy capture's traces (issue 13: the
// peer's count for that chain).
const busyInternalTxs = 44014

// TestBusyInternalTxs ingests the busy minievm capture with the internal-tx follower running
// beside the pipeline, as in production, and requires every internal tx to be indexed, the
// follower to reach the top, and the EVM tx count to be the capture's.
func TestBusyInternalTxs(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the 752-block busy capture")
	}
	srv, err := replay.New(testutil.Fixture(t, testutil.Busy))
	if err != nil {
		t.Fatal(err)
	}
	top := srv.CapturedMaxHeight()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "busy.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := chainSource(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(ingest.Config{ChainID: "local-evm-1", VMType: "evm", StopAtHeight: top,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}, src, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := ingest.NewInternalFollower(ingest.InternalConfig{StopAtHeight: top, PollInterval: 10 * time.Millisecond,
		RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}, src.EVM(), db, nil)
	start := time.Now()
	var g errgroup.Group
	g.Go(func() error { return p.Run(ctx) })
	g.Go(func() error { return f.Run(ctx) })
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("blocks and internal txs to height %d in %v", top, time.Since(start).Round(time.Millisecond))
	if h, _ := db.InternalTxHeight(ctx); h != top {
		t.Fatalf("internal_tx_height %d, want %d", h, top)
	}
	all := store.Page{Limit: 1, Desc: true, CountTotal: true}
	in, err := db.InternalTxs(ctx, store.InternalTxFilter{}, all)
	if err != nil {
		t.Fatal(err)
	}
	if in.Total != busyInternalTxs {
		t.Errorf("%d internal txs indexed, want %d", in.Total, busyInternalTxs)
	}
	ev, err := db.EVMTxs(ctx, store.EVMTxFilter{}, all)
	if err != nil {
		t.Fatal(err)
	}
	// 7,761 receipts in the capture's eth_getBlockReceipts answers (the 7,407 signed EVM txs of
	// traffic.jsonl plus the Cosmos txs that ran EVM calls).
	if ev.Total != 7761 {
		t.Errorf("%d EVM txs indexed, want the capture's 7,761 receipts", ev.Total)
	}
	t.Logf("%d EVM txs, %d internal txs", ev.Total, in.Total)
}
