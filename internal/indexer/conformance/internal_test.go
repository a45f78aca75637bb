package conformance

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// busyInternalTxs is the number of call frames in the busy capture's traces (rollytics'
// count for that chain).
const busyInternalTxs = 44014

// TestBusyExtensions ingests the busy minievm capture with the internal-tx follower running
// beside the pipeline and the rich list on, as in production, and requires every internal tx
// to be indexed, the follower to reach the top, the EVM tx count to be the capture's, and the
// rich list at the top to equal the real chain's bank balances captured there.
func TestBusyExtensions(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the 752-block busy capture")
	}
	srv, err := replay.New(testutil.Fixture(t, testutil.Busy), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	top := srv.CapturedMaxHeight()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The reference for the log's ratio: the same ingestion without the extensions (Cosmos
	// txs and EVM receipts only). Only logged: no test asserts a timing.
	alone := busyBlocksOnly(ctx, t, ts.URL, top)
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "busy.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := chainSource(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{ChainID: "local-evm-1", VMType: "evm", StopAtHeight: top, RichList: true,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}, profile.Options{}), src, db, nil, nil)
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
	all3 := time.Since(start)
	t.Logf("height, internal_tx_height and rich_list_height all at %d in %v; height alone (no extensions) in %v: ratio %.2f",
		top, all3.Round(time.Millisecond), alone.Round(time.Millisecond), all3.Seconds()/alone.Seconds())
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
	checkBusyRichList(t, db, testutil.Fixture(t, testutil.Busy), top)
}

// checkBusyRichList compares the rich list with the bank balances the real chain answered at
// the top for every account of the capture (rest/balances/*_h<top>.json): the same holders
// with the same amounts for each denom, zero balances aside.
func checkBusyRichList(t *testing.T, db *store.DB, dir string, top int64) {
	ctx := context.Background()
	if h, _ := db.RichListHeight(ctx); h != top {
		t.Fatalf("rich_list_height %d, want %d", h, top)
	}
	files, err := filepath.Glob(filepath.Join(dir, "rest", "balances", fmt.Sprintf("*_h%d.json", top)))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captured balances at %d: %v", top, err)
	}
	want := map[string]map[string]string{} // contract → holder hex → amount
	for _, f := range files {
		var r struct {
			Balances []struct{ Denom, Amount string } `json:"balances"`
		}
		testutil.ReadJSON(t, f, &r)
		bech, _, _ := strings.Cut(filepath.Base(f), "_h")
		acc, err := address.FromBech32("init", bech)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Balances {
			contract := "0x" + strings.ToLower(strings.TrimPrefix(c.Denom, "evm/"))
			if !strings.HasPrefix(c.Denom, "evm/") {
				if contract, err = db.RichListAlias(ctx, strings.ToLower(c.Denom)); err != nil || contract == "" {
					t.Fatalf("denom %s has no alias (%v)", c.Denom, err)
				}
			}
			if want[contract] == nil {
				want[contract] = map[string]string{}
			}
			if c.Amount != "0" {
				want[contract][hex.EncodeToString(acc)] = c.Amount
			}
		}
	}
	holders := 0
	for contract, w := range want {
		pg, err := db.Holders(ctx, contract, store.Page{Limit: 1000, Desc: true, CountTotal: true})
		if err != nil {
			t.Fatal(err)
		}
		if pg.Total >= 1000 {
			t.Fatalf("%s: %d holders, more than one page", contract, pg.Total)
		}
		got := map[string]string{}
		for _, h := range pg.Holders {
			if h.Amount.Sign() > 0 {
				got[hex.EncodeToString(h.Account)] = h.Amount.String()
			}
		}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("rich list of %s differs from the chain's balances at %d (-chain +rich list):\n%s", contract, top, d)
		}
		holders += len(w)
	}
	t.Logf("rich list = the real chain's balances at %d: %d denoms, %d holders", top, len(want), holders)
}

// busyBlocksOnly ingests the capture into a fresh SQLite store without internal txs or rich
// list and returns the time to the top.
func busyBlocksOnly(ctx context.Context, t *testing.T, url string, top int64) time.Duration {
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "alone.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := chainSource(url)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{ChainID: "local-evm-1", VMType: "evm", StopAtHeight: top,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}, profile.Options{}), src, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if h, _ := db.IndexedHeight(ctx); h != top {
		t.Fatalf("blocks-only run stopped at %d", h)
	}
	return time.Since(start)
}
