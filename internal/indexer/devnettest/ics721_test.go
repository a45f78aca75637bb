package devnettest

import (
	"context"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/engine"
	"github.com/rollgate/rollgate/internal/devnet/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/vm/wasm"
)

const l1ChainID = "initia-devnet-1"

// ics721Config is netConfig with the L1 and the bridges, fungible bridge traffic off and
// ICS-721 on: the L1 sends class tokens to the rollups, whose VMs mint them.
func ics721Config() devnet.Config {
	cfg := netConfig()
	cfg.Chains = append([]devnet.ChainSpec{{ChainID: l1ChainID, Kind: engine.KindL1}}, cfg.Chains...)
	cfg.Bridges = true
	cfg.NFTTraffic = 0.5
	return cfg
}

// ics721Collection is the 0x address the API names a received voucher class's collection by,
// read from the rollup VM's own state.
func ics721Collection(t testing.TB, kind string, c *engine.Chain, tip int64, voucher string) string {
	t.Helper()
	q, err := c.Query(tip)
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "evm":
		a, ok := evm.ICS721Contract(q.Store(evm.StoreName), voucher)
		if !ok {
			t.Fatalf("evm: no contract for %s", voucher)
		}
		return strings.ToLower(a.Hex())
	case "wasm":
		a, ok := wasm.ICS721Contract(q.Store(wasm.StoreName), voucher)
		if !ok {
			t.Fatalf("wasm: no contract for %s", voucher)
		}
		return address.Hex(a)
	default:
		col := move.CollectionAddr(move.AccAddr(address.ModuleAccount(ibc.NFTModule)), voucher)
		return address.Hex(col[:])
	}
}

// TestICS721Origins indexes each rollup of a network whose L1 sends NFTs over ICS-721 and
// checks the NFT ground truth (checkNFTs: every collection, received ones included, with the
// devnet's tokens, owners and URIs) and, for every class the rollup received, that its
// collection is served under the voucher name with origin_name = the L1 class's name.
func TestICS721Origins(t *testing.T) {
	n := startNet(t, ics721Config())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	l1, _ := n.Chain(l1ChainID)
	lq, err := l1.Chain.Query(tip)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, c := range ibc.NFTClasses(lq.Store(ibc.StoreName)) {
		names[c.ID] = c.Name
	}
	for _, r := range rollups {
		t.Run(r.kind, func(t *testing.T) {
			dc, _ := n.Chain(r.chainID)
			q, err := dc.Chain.Query(tip)
			if err != nil {
				t.Fatal(err)
			}
			traces := ibc.NFTTraces(q.Store(ibc.StoreName))
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
			checkNFTs(t, r.kind, h, dc.Chain, tip)
			for voucher, path := range traces {
				classID := path[strings.LastIndexByte(path, '/')+1:]
				want, ok := names[classID]
				if !ok {
					t.Fatalf("%s: voucher %s traces to %s, no L1 class", r.kind, voucher, path)
				}
				if wantVoucher := ibc.VoucherClass(ibc.NFTPort, "channel-1", classID, r.kind == "wasm"); voucher != wantVoucher {
					t.Errorf("%s: class %s received as %s, want %s", r.kind, classID, voucher, wantVoucher)
				}
				coll := ics721Collection(t, r.kind, dc.Chain, tip, voucher)
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
					t.Errorf("%s collection %s: name %q origin_name %q, want %q and the L1 class name %q", r.kind, coll, got.Name, got.OriginName, voucher, want)
				}
			}
			t.Logf("%s: %d ICS-721 classes received, origin names = the L1's", r.kind, len(traces))
		})
	}
}
