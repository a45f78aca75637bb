package devnettest

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
)

const l1ChainID = "initia-devnet-1"

// ics721Config is netConfig with the L1 and the bridges, fungible bridge traffic off and
// ICS-721 on: the L1 sends class tokens to the rollups, whose VMs mint them.
func ics721Config() devnet.Config {
	cfg := netConfig()
	cfg.Chains = append([]devnet.ChainSpec{{ChainID: l1ChainID, Kind: devnet.KindL1}}, cfg.Chains...)
	cfg.Bridges = true
	cfg.NFTTraffic = 0.5
	// Fault mode is off until the crash loop turns it on; a hang lasts past the child's
	// per-attempt timeout (childTimeout), so it is abandoned and retried.
	cfg.FaultSeed, cfg.FaultHang = seed, 4*childTimeout
	return cfg
}

// ics721Collection is the 0x address the API names a received voucher class's collection by,
// read from the rollup VM's own state.
func ics721Collection(t testing.TB, c *devnet.Chain, tip int64, voucher string) string {
	t.Helper()
	coll, err := c.ICS721Collection(tip, voucher)
	if err != nil {
		t.Fatal(err)
	}
	return coll
}

// TestICS721Origins indexes each rollup of a network whose L1 sends NFTs over ICS-721 and
// checks the NFT ground truth (checkNFTs: every collection, received ones included, with the
// devnet's tokens, owners and URIs) and, for every class the rollup received, that its
// collection is served under the voucher name with origin_name = the L1 class's name. Then it
// indexes each rollup again with the devnet's fault mode on, through a crash loop (the
// ingesting process SIGKILLed a few times and restarted), and requires the same store (dump)
// and the same answers, and the rich list to equal the chain's balances.
func TestICS721Origins(t *testing.T) {
	n := startNet(t, ics721Config())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	names := l1ClassNames(t, n)
	clean := map[string][]byte{}
	for _, r := range rollups {
		t.Run(r.kind, func(t *testing.T) {
			dc, _ := n.Chain(r.chainID)
			traces := rollupTraces(t, dc, tip)
			if len(traces) == 0 {
				t.Fatalf("%s received no ICS-721 class in %d blocks", r.kind, produced)
			}
			db := openStore(t, backends[0].dsn(t))
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := ingestChain(ctx, n.Endpoints()[r.chainID], r, db, tip); err != nil {
				t.Fatalf("ingest: %v", err)
			}
			h := newAPI(r, db)
			checkNFTs(t, r.kind, h, dc, tip)
			checkOrigins(t, r.kind, h, dc, tip, traces, names)
			clean[r.kind] = dump(t, db)
			t.Logf("%s: %d ICS-721 classes received, origin names = the L1's", r.kind, len(traces))
		})
	}

	// A few kills per rollup keep this CI-sized; the conformance crash test does 20+ per
	// backend on a captured chain.
	const kills = 3
	n.Faults().SetRate(faultRate)
	n.Faults().SetEnabled(true)
	rng := rand.New(rand.NewPCG(seed, 721))
	for _, r := range rollups {
		t.Run(r.kind+"/crash_loop_faults", func(t *testing.T) {
			if clean[r.kind] == nil {
				// A failure, not a skip: a run that cannot be compared has proved nothing.
				t.Fatal("no clean reference to compare with (its run failed above)")
			}
			dc, _ := n.Chain(r.chainID)
			dsn := backends[0].dsn(t)
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			landed, err := crashLoop(ctx, n, r, dsn, kills, rng)
			if err != nil {
				t.Fatal(err)
			}
			if len(landed) < kills {
				t.Errorf("only %d of %d kills landed before the child finished", len(landed), kills)
			}
			db := openStore(t, dsn)
			// The rich list's ground truth too (Dump leaves its tables out): its EVM denoms are
			// resolved over REST, which the checks ask with the fault mode off.
			n.Faults().SetEnabled(false)
			checkRichList(t, db, dc, n.Endpoints()[r.chainID], tip)
			n.Faults().SetEnabled(true)
			if got := dump(t, db); !bytes.Equal(got, clean[r.kind]) {
				t.Errorf("%s: the store filled through %d kills under faults differs from the clean one:\n%s", r.kind, len(landed), firstDiff(got, clean[r.kind]))
			}
			h := newAPI(r, db)
			checkNFTs(t, r.kind, h, dc, tip)
			checkOrigins(t, r.kind, h, dc, tip, rollupTraces(t, dc, tip), names)
			t.Logf("%s: %d kills under faults (indexed height after each: %v), store = the clean run's", r.kind, len(landed), landed)
		})
	}
	counts, passed := n.Faults().Counts()
	var failed int64
	for _, c := range counts {
		failed += c
	}
	t.Logf("upstream during the crash loops: %d requests, %d failed %v", failed+passed, failed, counts)
	if failed == 0 {
		t.Error("no fault was injected during the crash loops")
	}
}

// l1ClassNames maps the L1's class ids to their names, from the L1's state.
func l1ClassNames(t testing.TB, n *devnet.Network) map[string]string {
	t.Helper()
	l1, _ := n.Chain(l1ChainID)
	names, err := l1.NFTClassNames(tip)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// checkOrigins checks that every voucher class the rollup received (traces: voucher → prefixed
// path) is served under its voucher name with origin_name = the L1 class's name.
func checkOrigins(t testing.TB, kind string, h http.Handler, c *devnet.Chain, tip int64, traces, names map[string]string) {
	t.Helper()
	for voucher, path := range traces {
		classID := path[strings.LastIndexByte(path, '/')+1:]
		want, ok := names[classID]
		if !ok {
			t.Fatalf("%s: voucher %s traces to %s, no L1 class", kind, voucher, path)
		}
		if wantVoucher := devnet.NFTVoucherClass("channel-1", classID, vmkind.Kind(kind) == vmkind.Wasm); voucher != wantVoucher {
			t.Errorf("%s: class %s received as %s, want %s", kind, classID, voucher, wantVoucher)
		}
		coll := ics721Collection(t, c, tip, voucher)
		var one struct {
			Collection struct {
				Collection struct {
					Name       string `json:"name"`
					OriginName string `json:"origin_name"`
				} `json:"collection"`
			} `json:"collection"`
		}
		getJSON(t, h, "/indexer/nft/v1/collections/"+coll, &one)
		if got := one.Collection.Collection; got.Name != voucher || got.OriginName != want {
			t.Errorf("%s collection %s: name %q origin_name %q, want %q and the L1 class name %q", kind, coll, got.Name, got.OriginName, voucher, want)
		}
	}
}

// rollupTraces reads the voucher classes a rollup received from its state.
func rollupTraces(t testing.TB, c *devnet.Chain, tip int64) map[string]string {
	t.Helper()
	traces, err := c.NFTTraces(tip)
	if err != nil {
		t.Fatal(err)
	}
	return traces
}
