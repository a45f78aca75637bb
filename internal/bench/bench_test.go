package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

func TestUniqueTx(t *testing.T) {
	signed, err := proto.Marshal(&txv1beta1.TxRaw{BodyBytes: []byte("body"), AuthInfoBytes: []byte("auth"),
		Signatures: [][]byte{bytes.Repeat([]byte{0xAB}, 65), []byte("second")}})
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := proto.Marshal(&txv1beta1.TxRaw{BodyBytes: []byte("body"), AuthInfoBytes: []byte("auth")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		tx     []byte
		signed bool
	}{{"signed", signed, true}, {"unsigned", unsigned, false}} {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[string]bool{string(tc.tx): true}
			off, n := findSig(tc.tx)
			if (off >= 0) != tc.signed {
				t.Fatalf("findSig = %d, %d", off, n)
			}
			var orig txv1beta1.TxRaw
			if err := proto.Unmarshal(tc.tx, &orig); err != nil {
				t.Fatal(err)
			}
			if tc.signed && !bytes.Equal(tc.tx[off:off+n], orig.Signatures[0]) {
				t.Fatalf("findSig points at %x, not the first signature", tc.tx[off:off+n])
			}
			for _, h := range []int64{1, 2, 255, 256, 1 << 40} {
				got := alterTx(tc.tx, off, n, h)
				if seen[string(got)] {
					t.Fatalf("height %d: tx bytes not unique", h)
				}
				seen[string(got)] = true
				var raw txv1beta1.TxRaw
				if err := proto.Unmarshal(got, &raw); err != nil {
					t.Fatalf("height %d: altered tx does not decode: %v", h, err)
				}
				if !bytes.Equal(raw.BodyBytes, orig.BodyBytes) || !bytes.Equal(raw.AuthInfoBytes, orig.AuthInfoBytes) || len(raw.Signatures) != len(orig.Signatures) {
					t.Fatalf("height %d: body, auth info or signature count changed", h)
				}
				if tc.signed && (!bytes.Equal(raw.Signatures[1], orig.Signatures[1]) || bytes.Equal(raw.Signatures[0], orig.Signatures[0])) {
					t.Fatalf("height %d: want the first signature changed and only it", h)
				}
			}
		})
	}
}

// TestSyntheticSourcePairs checks that every tx the synthetic source serves has a REST tx
// carrying its (altered) signatures, as the builder requires, at two repetitions.
func TestSyntheticSourcePairs(t *testing.T) {
	ctx := context.Background()
	s, err := LoadSyntheticSource(ctx, testutil.Fixture(t, "minievm-busy"), 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 389 || s.TxsPerCycle() != 7765 {
		t.Fatalf("%d blocks / %d txs per repetition, want the capture's 389 / 7765", s.Len(), s.TxsPerCycle())
	}
	for _, h := range []int64{1, 2, int64(s.Len()) + 1, int64(s.Len()) + 2} {
		blk, err := s.Block(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := s.BlockTxs(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		for i, tx := range blk.Txs {
			var raw txv1beta1.TxRaw
			if err := proto.Unmarshal(tx, &raw); err != nil {
				t.Fatal(err)
			}
			if len(raw.Signatures) == 0 {
				continue
			}
			quoted := `"` + base64.StdEncoding.EncodeToString(raw.Signatures[0]) + `"`
			found := false
			for _, r := range rest {
				found = found || strings.Contains(string(r), quoted)
			}
			if !found {
				t.Fatalf("height %d tx %d: no REST tx carries its signature", h, i)
			}
		}
	}
}

// TestCommands runs the three benchmarks with tiny sizes on both backends and checks that
// every figure is printed and that the stores hold what was fed. It asserts no timing.
func TestCommands(t *testing.T) {
	fixture := testutil.Fixture(t, "minievm-busy")
	ctx := context.Background()
	for _, be := range testutil.Backends("bench.db") {
		t.Run(be.Name, func(t *testing.T) {
			dsn := be.DSN(t)
			var out bytes.Buffer
			// Every extension on, as an EVM chain's indexer runs: receipts, the internal-tx
			// follower and the rich list.
			busy, err := Ingest(ctx, IngestConfig{DSN: dsn, Source: "busy", Fixture: fixture, EVM: true, InternalTxs: true,
				Ingest: ingest.Config{RichList: true}}, &out, nil)
			if err != nil {
				t.Fatalf("busy ingest: %v\n%s", err, out.String())
			}
			if busy.BlocksElapsed <= 0 || busy.InternalElapsed <= 0 || busy.Elapsed != max(busy.BlocksElapsed, busy.InternalElapsed) {
				t.Errorf("elapsed: blocks %v, internal txs %v, run %v", busy.BlocksElapsed, busy.InternalElapsed, busy.Elapsed)
			}
			checkLines(t, out.String(), "height        752 after", "internal txs  752 after")
			checkExtensions(t, dsn)
			// The capture's README: heights 1..752, 7,765 txs.
			if busy.Blocks != 752 || busy.Txs != 7765 || busy.StoreTxs != 7765 {
				t.Errorf("busy ingest wrote %d blocks / %d txs, store holds %d txs; want 752 / 7765 / 7765", busy.Blocks, busy.Txs, busy.StoreTxs)
			}
			if busy.StoreBytes <= 0 {
				t.Errorf("store size %d", busy.StoreBytes)
			}
			checkLines(t, out.String(), "blocks/s", "txs/s", "time", "writer busy", "store txs", "store size")
			if _, err := Ingest(ctx, IngestConfig{DSN: dsn, Source: "busy", Fixture: fixture}, &bytes.Buffer{}, nil); err == nil {
				t.Error("replaying the capture into a non-empty store was accepted")
			}

			out.Reset()
			syn, err := Ingest(ctx, IngestConfig{DSN: dsn, Source: "synthetic", Fixture: fixture, Txs: 150, ReportEvery: 50}, &out, nil)
			if err != nil {
				t.Fatalf("synthetic ingest: %v\n%s", err, out.String())
			}
			if syn.FromHeight != 753 || syn.Txs < 150 || syn.StoreTxs != 7765+syn.Txs {
				t.Errorf("synthetic ingest from %d wrote %d txs, store holds %d", syn.FromHeight, syn.Txs, syn.StoreTxs)
			}
			checkLines(t, out.String(), "blocks/s", "txs/s", "time", "writer busy", "store txs", "store size")

			out.Reset()
			want := int(syn.StoreTxs) + 40
			evmTxs := countEVMTxs(t, dsn) + 30
			res, err := API(ctx, APIConfig{DSN: dsn, Txs: want, Concurrency: 2, Duration: 20 * time.Millisecond, Analyze: true,
				RichListHolders: 45, EVMTxs: int(evmTxs)}, &out, nil)
			if err != nil {
				t.Fatalf("api: %v\n%s", err, out.String())
			}
			if res.FillTxs != 40 || res.StoreTxs != int64(want) {
				t.Errorf("filled %d txs to a store of %d, want 40 and %d", res.FillTxs, res.StoreTxs, want)
			}
			var names []string
			for _, e := range res.Endpoints {
				names = append(names, e.Name)
				if e.Requests == 0 || e.Errors != 0 {
					t.Errorf("%s: %d requests, %d errors", e.Name, e.Requests, e.Errors)
				}
			}
			checkLines(t, out.String(), append(names, "req/s", "p50 ms", "p99 ms", "txs_deep_offset vs txs")...)
			if got := countEVMTxs(t, dsn); got != evmTxs {
				t.Errorf("store holds %d EVM txs after the fill, want %d", got, evmTxs)
			}
			for _, n := range []string{"status", "blocks", "block_by_height", "txs", "tx_by_hash", "txs_by_account", "txs_by_height", "txs_msgs", "txs_deep_offset",
				"richlist", "evm_txs", "evm_txs_by_account", "evm_txs_by_height", "evm_tx_by_hash",
				"evm_internal_txs", "evm_internal_by_account", "evm_internal_by_height", "evm_internal_by_hash"} {
				if !strings.Contains(strings.Join(names, " ")+" ", n+" ") {
					t.Errorf("endpoint %s not measured (measured %v)", n, names)
				}
			}
		})
	}

	t.Run("route", func(t *testing.T) {
		var out bytes.Buffer
		res, err := Route(ctx, RouteConfig{Chains: 5, Assets: 30, Requests: 20, Seed: 1}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 20 || res.Chains != 5 {
			t.Errorf("route bench ran %d requests over %d chains", res.Requests, res.Chains)
		}
		checkLines(t, out.String(), "p50 ms", "p99 ms", "max ms")
	})
}

// checkExtensions checks the busy capture's extensions reached the top: every internal tx
// traced (44,014), every receipt stored (7,761) and the rich list at height 752.
func checkExtensions(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := store.Page{Limit: 1, CountTotal: true}
	in, err := db.InternalTxs(ctx, store.InternalTxFilter{}, all)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := db.EVMTxs(ctx, store.EVMTxFilter{}, all)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := db.RichListHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if in.Total != 44014 || ev.Total != 7761 || rl != 752 {
		t.Errorf("store holds %d internal txs, %d EVM txs, rich list at %d; want 44014, 7761, 752", in.Total, ev.Total, rl)
	}
}

func checkLines(t *testing.T, out string, labels ...string) {
	t.Helper()
	for _, l := range labels {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q:\n%s", l, out)
		}
	}
}

func countEVMTxs(t *testing.T, dsn string) int64 {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pg, err := db.EVMTxs(context.Background(), store.EVMTxFilter{}, store.Page{Limit: 1, CountTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	return pg.Total
}
