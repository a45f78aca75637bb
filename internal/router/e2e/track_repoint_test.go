package e2e

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestTrackChainRepointed: ten transfers are in flight between the L1 and minimove (IBC
// minimove → L1, whose acknowledgements come back on minimove, and OPinit deposits L1 →
// minimove, finalized there) when minimove's RPC is repointed at another devnet's minimove
// (another seed, the same chain id, past the old height). The devnet goes on and settles
// every transfer, as TestTrackFailover's fleet does; the tracker never completes one: the
// scan of minimove halts on its first block (its parent hash is not the scanned one), every
// transfer stays pending with STATUS_ERROR_INDEXING naming CHAIN_MISMATCH, the L1 goes on
// being scanned, and one ERROR line names both hashes.
func TestTrackChainRepointed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two devnets")
	}
	ctx := context.Background()
	n := startTrackNet(t, "")
	n.t = t
	cfg := devnet.DefaultConfig()
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed+1, genesisTime, true
	cfg.BlockInterval = time.Second
	cfg.BridgeTraffic = 0
	cfg.Accounts, cfg.TxsPerBlock = 1, 1
	other, err := devnet.Start(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })

	// minimove's RPC as the tracker reaches it: a proxy the test repoints.
	var target atomic.Pointer[url.URL]
	here, err := url.Parse(n.tn.ln.Endpoints()[moveID].RPC)
	if err != nil {
		t.Fatal(err)
	}
	target.Store(here)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) }})
	t.Cleanup(proxy.Close)
	reg, err := registry.Load(n.tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	live := registry.NewLive(reg)
	if err := live.Refresh(ctx, &registry.RESTSource{}); err != nil {
		t.Fatal(err)
	}
	live.Current().Chain(moveID).RPC = []string{proxy.URL}
	st, err := track.OpenStore(ctx, "sqlite:"+filepath.Join(t.TempDir(), "repoint.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	var logs testutil.SyncBuffer
	tr := track.New(st, live, track.Config{Probe: &track.RESTProber{Interval: time.Nanosecond},
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})

	fs := n.fleet(10)
	for _, f := range fs {
		if _, err := tr.Track(ctx, f.chainID, f.hash); err != nil {
			t.Fatal(err)
		}
	}
	n.broadcastAll(fs)
	if err := n.tn.step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(t, st, fs); got[track.StatePending] != len(fs) {
		t.Fatalf("before the repoint: %v", got)
	}
	// The other minimove past this one's height, then the repoint.
	rpc, err := comet.New(n.tn.ln.Endpoints()[moveID].RPC)
	if err != nil {
		t.Fatal(err)
	}
	h, err := rpc.LatestHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.ProduceBlocks(ctx, int(h)+5); err != nil {
		t.Fatal(err)
	}
	there, err := url.Parse(other.Endpoints()[moveID].RPC)
	if err != nil {
		t.Fatal(err)
	}
	target.Store(there)
	l1Before, _ := st.ChainTime(ctx, l1ID)
	for range 30 {
		if err := n.tn.step(ctx); err != nil {
			t.Fatal(err)
		}
		if err := other.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tr.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if pk, acks, deps := n.tn.ln.RelayerPending(); pk+acks+deps != 0 {
		t.Fatalf("the devnet did not settle the transfers: %d packets, %d acks, %d deposits pending", pk, acks, deps)
	}
	for _, f := range fs {
		tx, err := st.Get(ctx, f.chainID, f.hash)
		if err != nil {
			t.Fatal(err)
		}
		var s track.StatusResponse
		if err := json.Unmarshal(tx.Doc, &s); err != nil {
			t.Fatal(err)
		}
		if track.Terminal(s.State) || s.Error == nil || s.Error.Type != track.StatusErrorIndexing || !strings.Contains(s.Error.Message, track.ReasonChainMismatch) {
			t.Fatalf("%s on %s after the repoint: %s", f.hash, f.chainID, tx.Doc)
		}
	}
	if err := tr.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range tr.Reachability() {
		switch {
		case c.ChainID == moveID && (c.State != track.ChainHalted || c.Mismatch == nil || c.Mismatch.StoredHash == c.Mismatch.NodeHash):
			t.Errorf("minimove: %+v", c)
		case c.ChainID != moveID && c.State != track.ChainScanning:
			t.Errorf("%s: %+v", c.ChainID, c)
		}
	}
	if l1After, _ := st.ChainTime(ctx, l1ID); !l1After.After(l1Before) {
		t.Errorf("the L1's scan stopped too: %v → %v", l1Before, l1After)
	}
	if c := strings.Count(logs.String(), "level=ERROR"); c != 1 {
		t.Errorf("%d ERROR lines, want 1:\n%s", c, logs.String())
	}
	t.Logf("%v; %s", states(t, st, fs), strings.TrimSpace(logs.String()[strings.Index(logs.String(), "level=ERROR"):]))
}
