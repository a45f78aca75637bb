package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// ingestFixture runs the real pipeline (the project's chain clients against the replay server) over every
// captured height of a fixture chain and returns what it wrote.
func ingestFixture(t *testing.T, name string) (*memWriter, string) {
	w, dir, _ := ingestFixtureWith(t, name, false)
	return w, dir
}

// countingSource counts the REST tx calls.
type countingSource struct {
	Source
	blockTxs atomic.Int64
}

func (c *countingSource) BlockTxs(ctx context.Context, h int64) ([]json.RawMessage, error) {
	c.blockTxs.Add(1)
	return c.Source.BlockTxs(ctx, h)
}

// replayFixture serves the captured chain name over HTTP until the test ends and dials a
// source on it (metrics in reg, which may be nil); top is the capture's last height.
func replayFixture(t *testing.T, name string, reg prometheus.Registerer) (src Source, srv *replay.Server, top int64) {
	t.Helper()
	// The captured /status may predate the last captured blocks: report the capture's top.
	srv, err := replay.New(testutil.Fixture(t, name), replay.MaxHeight(func() int64 { return top }))
	if err != nil {
		t.Fatal(err)
	}
	top = srv.CapturedMaxHeight()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	cs, err := DialSource(ts.URL, ts.URL, reg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, srv, top
}

func ingestFixtureWith(t *testing.T, name string, local bool) (*memWriter, string, int64) {
	t.Helper()
	dir := testutil.Fixture(t, name)
	reg := prometheus.NewRegistry()
	cs, srv, _ := replayFixture(t, name, reg)
	src := &countingSource{Source: cs}
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StopAtHeight = srv.CapturedMaxHeight()
	cfg.LocalTxJSON = local
	runPipeline(t, cfg, src, w, nil)
	if misses := srv.Misses(); len(misses) > 0 {
		t.Errorf("requests the capture cannot answer: %v", misses)
	}
	if n := counterValue(t, reg, "rollgate_ingest_upstream_attempts_total"); n < float64(2*len(w.blocks)) {
		t.Errorf("%v upstream attempts counted for %d blocks", n, len(w.blocks))
	}
	return w, dir, src.blockTxs.Load()
}

// TestFixtureChains checks the bundle of every captured height of the three chains against
// answers the builder does not use: CometBFT `/tx?hash=` (hash, result, events), REST
// `/cosmos/tx/v1beta1/txs/{hash}` (the tx JSON) and the ante handler's `acc_seq` event (the
// signer). A golden summary (accounts, msg types, fees, proposers) pins the rest for review.
func TestFixtureChains(t *testing.T) {
	for _, name := range []string{"minievm", "minimove", "miniwasm"} {
		t.Run(name, func(t *testing.T) {
			w, dir := ingestFixture(t, name)
			x := NewAccountExtractor("init")
			ntx := 0
			for _, b := range w.blocks {
				for _, tx := range b.Txs {
					ntx++
					checkFixtureTx(t, dir, x, tx)
				}
			}
			if ntx == 0 {
				t.Fatal("no tx ingested")
			}
			testutil.Golden(t, name+".summary", summary(t, w.blocks))
		})
	}
}

// summary renders the bundles as the reviewable golden text.
func summary(t *testing.T, blocks []store.BlockBundle) []byte {
	t.Helper()
	x := NewAccountExtractor("init")
	var out bytes.Buffer
	for i, b := range blocks {
		if b.Block.Height != int64(i+1) {
			t.Fatalf("block %d has height %d", i, b.Block.Height)
		}
		fmt.Fprintf(&out, "block %d %X time=%s block_time=%d txs=%d gas=%d/%d fee=%s proposer=%s\n",
			b.Block.Height, b.Block.Hash, b.Block.Time.Format(time.RFC3339Nano), b.Block.BlockTimeMs, b.Block.TxCount,
			b.Block.GasUsed, b.Block.GasWanted, b.Block.TotalFee, proposerString(b.Block.Proposer))
		for _, tx := range b.Txs {
			var accs []string
			for _, a := range tx.Accounts {
				s := x.Bech32(a.Addr)
				if a.Signer {
					s += "*"
				}
				accs = append(accs, s)
			}
			sort.Strings(accs)
			fmt.Fprintf(&out, "  tx %X signer=%s msgs=%s accounts=%s\n", tx.Hash, x.Bech32(tx.Signer),
				strings.Join(tx.MsgTypes, ","), strings.Join(accs, ","))
		}
	}
	return out.Bytes()
}

// aheadSource claims the chain is already at its final height, like a load-balanced node
// that is ahead of the one answering the block queries: the pipeline then meets the tip
// through the future-height errors of /block, /block_results and REST instead of /status.
type aheadSource struct {
	Source
	head int64
}

func (a aheadSource) LatestHeight(context.Context) (int64, error) { return a.head, nil }

// TestFollowGrowingReplay replays minievm as a chain that grows while it is being indexed
// (the replay server answers heights above its current top with the captured future-height
// errors, as a real node does): the pipeline must wait at the tip, pick every block up as it
// appears, and end with exactly the bundles of the one-shot run.
func TestFollowGrowingReplay(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		t.Run(fmt.Sprintf("status_ahead=%v", ahead), func(t *testing.T) {
			dir := testutil.Fixture(t, "minievm")
			var top atomic.Int64
			top.Store(5)
			srv, err := replay.New(dir, replay.MaxHeight(top.Load))
			if err != nil {
				t.Fatal(err)
			}
			last := srv.CapturedMaxHeight()
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			var src Source
			if src, err = DialSource(ts.URL, ts.URL, nil); err != nil {
				t.Fatal(err)
			}
			if ahead {
				src = aheadSource{Source: src, head: last}
			}
			w := &memWriter{}
			// A new block appears only once the previous one is indexed, so every height
			// above 5 is met at the tip first.
			w.onWrite = func(h int64) {
				if h == top.Load() && h < last {
					go func() { time.Sleep(2 * time.Millisecond); top.Add(1) }()
				}
			}
			cfg := fastConfig()
			cfg.StopAtHeight = last
			runPipeline(t, cfg, src, w, nil)
			if len(w.batches) < int(last-5) {
				t.Errorf("%d writes for %d blocks that appeared one by one", len(w.batches), last)
			}
			testutil.Golden(t, "minievm.summary", summary(t, w.blocks))
		})
	}
}

func proposerString(p *store.Proposer) string {
	if p == nil {
		return "nil"
	}
	return p.Moniker + "/" + p.OperatorAddress
}

func checkFixtureTx(t *testing.T, dir string, x *AccountExtractor, tx store.Tx) {
	t.Helper()
	hash := fmt.Sprintf("%X", tx.Hash)
	var got struct {
		TxHash    string          `json:"txhash"`
		Height    string          `json:"height"`
		Code      uint32          `json:"code"`
		GasUsed   string          `json:"gas_used"`
		GasWanted string          `json:"gas_wanted"`
		Data      string          `json:"data"`
		Tx        json.RawMessage `json:"tx"`
		Events    json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(tx.JSON, &got); err != nil {
		t.Fatalf("tx %s JSON: %v", hash, err)
	}
	if got.TxHash != hash || got.Height != fmt.Sprint(tx.Height) {
		t.Errorf("tx %s: txhash %s height %s", hash, got.TxHash, got.Height)
	}

	// CometBFT's own record of the tx, looked up by the hash we computed.
	raw, err := os.ReadFile(filepath.Join(dir, "comet", "tx", hash+".json"))
	if err != nil {
		t.Errorf("tx %s: no CometBFT /tx capture for the computed hash: %v", hash, err)
		return
	}
	var ct struct {
		Result struct {
			Height   string `json:"height"`
			Index    int    `json:"index"`
			TxResult struct {
				Code      uint32          `json:"code"`
				Data      []byte          `json:"data"`
				GasUsed   string          `json:"gas_used"`
				GasWanted string          `json:"gas_wanted"`
				Events    json.RawMessage `json:"events"`
			} `json:"tx_result"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &ct); err != nil {
		t.Fatal(err)
	}
	r := ct.Result
	if r.Height != got.Height || r.Index != tx.Index || r.TxResult.Code != got.Code || r.TxResult.GasUsed != got.GasUsed ||
		r.TxResult.GasWanted != got.GasWanted || strings.ToUpper(hex.EncodeToString(r.TxResult.Data)) != got.Data {
		t.Errorf("tx %s: result differs from /tx: %+v vs %s", hash, r, tx.JSON[:min(len(tx.JSON), 300)])
	}
	if d := jsonDiff(r.TxResult.Events, got.Events); d != "" {
		t.Errorf("tx %s events differ from /tx (-want +got):\n%s", hash, d)
	}

	// The REST tx by hash: its `tx` minus the Any wrapper's @type is what rollytics serves.
	raw, err = os.ReadFile(filepath.Join(dir, "rest", "tx", hash+".json"))
	if err != nil {
		t.Errorf("tx %s: no REST tx capture: %v", hash, err)
		return
	}
	var rt struct {
		Tx map[string]any `json:"tx"`
	}
	if err := json.Unmarshal(raw, &rt); err != nil {
		t.Fatal(err)
	}
	delete(rt.Tx, "@type")
	want, _ := json.Marshal(rt.Tx)
	if d := jsonDiff(want, got.Tx); d != "" {
		t.Errorf("tx %s: tx JSON differs from REST (-want +got):\n%s", hash, d)
	}

	// The ante handler emits tx.acc_seq = "<signer bech32>/<sequence>" for the first signer.
	var events []Event
	_ = json.Unmarshal(got.Events, &events)
	for _, ev := range events {
		if ev.Type == "tx" && len(ev.Attributes) > 0 && ev.Attributes[0].Key == "acc_seq" {
			signer, _, _ := strings.Cut(ev.Attributes[0].Value, "/")
			if s := x.Bech32(tx.Signer); s != signer {
				t.Errorf("tx %s: signer %s, acc_seq says %s", hash, s, signer)
			}
			break
		}
	}
	signerListed := false
	for _, a := range tx.Accounts {
		signerListed = signerListed || (a.Signer && bytes.Equal(a.Addr, tx.Signer))
	}
	if !signerListed {
		t.Errorf("tx %s: signer not among its accounts", hash)
	}
}

func jsonDiff(a, b []byte) string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return "want: " + err.Error()
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return "got: " + err.Error()
	}
	return cmp.Diff(va, vb)
}

// TestLocalTxJSON ingests each chain a second time rendering the tx JSON locally and requires
// the very same bundles, without a single REST tx call (every message type of the captures
// is in the proto subset).
func TestLocalTxJSON(t *testing.T) {
	for _, name := range []string{"minievm", "minimove", "miniwasm"} {
		t.Run(name, func(t *testing.T) {
			viaREST, _, _ := ingestFixtureWith(t, name, false)
			local, _, calls := ingestFixtureWith(t, name, true)
			if calls != 0 {
				t.Errorf("%d REST tx calls in local mode", calls)
			}
			if len(local.blocks) != len(viaREST.blocks) {
				t.Fatalf("%d blocks vs %d", len(local.blocks), len(viaREST.blocks))
			}
			for i := range local.blocks {
				a, b := viaREST.blocks[i], local.blocks[i]
				for j := range a.Txs {
					if d := jsonDiff(a.Txs[j].JSON, b.Txs[j].JSON); d != "" {
						t.Errorf("height %d tx %d (-rest +local):\n%s", a.Block.Height, j, d)
					}
					a.Txs[j].JSON, b.Txs[j].JSON = nil, nil
				}
				if d := cmp.Diff(a, b); d != "" {
					t.Errorf("height %d bundle (-rest +local):\n%s", a.Block.Height, d)
				}
			}
		})
	}
}

// flakyHandler fails a share of requests: HTTP 503, or a connection closed without answer.
type flakyHandler struct {
	next  http.Handler
	mu    sync.Mutex
	rng   *rand.Rand
	share float64
	fails int
}

func (f *flakyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	roll := f.rng.Float64()
	fail := roll < f.share
	if fail {
		f.fails++
	}
	f.mu.Unlock()
	switch {
	case fail && roll < f.share/2:
		http.Error(w, "upstream unavailable (injected)", http.StatusServiceUnavailable)
	case fail:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		http.Error(w, "injected", http.StatusBadGateway)
	default:
		f.next.ServeHTTP(w, r)
	}
}

// TestFlakyReplay: with a quarter of all upstream requests failing (503s and dropped
// connections), the transport and pipeline retries still produce exactly the golden bundles.
func TestFlakyReplay(t *testing.T) {
	dir := testutil.Fixture(t, "minievm")
	var top int64
	srv, err := replay.New(dir, replay.MaxHeight(func() int64 { return top }))
	if err != nil {
		t.Fatal(err)
	}
	top = srv.CapturedMaxHeight()
	flaky := &flakyHandler{next: srv, rng: rand.New(rand.NewPCG(3, 4)), share: 0.25}
	ts := httptest.NewServer(flaky)
	t.Cleanup(ts.Close)
	src, err := DialSource(ts.URL, ts.URL, nil, httpx.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StopAtHeight = top
	runPipeline(t, cfg, src, w, nil)
	if flaky.fails == 0 {
		t.Fatal("no failure injected")
	}
	t.Logf("%d requests failed on purpose", flaky.fails)
	testutil.Golden(t, "minievm.summary", summary(t, w.blocks))
}
