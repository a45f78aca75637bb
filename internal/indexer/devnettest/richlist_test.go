package devnettest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
)

// checkRichList is the rich list's ground truth on every rollup: for every denom of the
// chain's own balance table (its bank store at the tip), the rich list of that denom (EVM: of
// its ERC-20; Move: rollytics' name of the fungible asset), paged to the end, holds exactly the chain's holders with exactly their
// amounts; holders listed at 0 hold nothing on the chain.
func checkRichList(t testing.TB, rd store.RichListReader, c *devnet.Chain, ep devnet.ChainEndpoints, tip int64) {
	t.Helper()
	ctx := context.Background()
	if h, err := rd.RichListHeight(ctx); err != nil || h != tip {
		t.Fatalf("rich_list_height %d (%v), want %d", h, err, tip)
	}
	chain, err := c.Balances(tip) // bank denom → holder hex → amount
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) == 0 {
		t.Fatal("the chain's balance table is empty")
	}
	rest, err := cosmosrest.New(ep.REST)
	if err != nil {
		t.Fatal(err)
	}
	holders := 0
	for denom, want := range chain {
		contract := denom // Wasm: the bank denom, lowercased below
		if vmkind.Kind(c.Kind()) == vmkind.EVM {
			if contract, err = rest.ContractByDenom(ctx, denom); err != nil {
				t.Fatalf("contract of %s: %v", denom, err)
			}
		}
		if hexAddr, ok := strings.CutPrefix(denom, "move/"); ok && vmkind.Kind(c.Kind()) == vmkind.Move {
			// A fungible asset: rollytics' name for it is its lowercase symbol when it has
			// no decimals, else move/<metadata address>.
			r, err := rest.Resource(ctx, "0x"+hexAddr, "0x1::fungible_asset::Metadata", tip)
			if err != nil {
				t.Fatalf("metadata of %s: %v", denom, err)
			}
			var md struct {
				Data struct {
					Symbol   string `json:"symbol"`
					Decimals int    `json:"decimals"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(r.MoveResource), &md); err != nil {
				t.Fatal(err)
			}
			if md.Data.Decimals == 0 && md.Data.Symbol != "" {
				contract = md.Data.Symbol
			}
		}
		got := map[string]string{}
		var total int64
		for off := int64(0); ; off += 1000 {
			pg, err := rd.Holders(ctx, strings.ToLower(contract), store.Page{Limit: 1000, Desc: true, Offset: off, CountTotal: true})
			if err != nil {
				t.Fatal(err)
			}
			total = pg.Total
			for _, h := range pg.Holders {
				a := hex.EncodeToString(h.Account)
				if _, dup := got[a]; dup {
					t.Errorf("%s: %s listed twice", denom, a)
				}
				got[a] = h.Amount.String()
			}
			if len(pg.Holders) < 1000 {
				break
			}
		}
		if int64(len(got)) != total {
			t.Errorf("%s: %d holders paged, total %d", denom, len(got), total)
		}
		for a, amt := range got {
			if amt == "0" {
				if _, holds := want[a]; holds {
					t.Errorf("%s: %s listed at 0, holds %s on the chain", denom, a, want[a])
				}
				continue
			}
			if want[a] != amt {
				t.Errorf("%s (%s): %s holds %q on the chain, %s in the rich list", denom, contract, a, want[a], amt)
			}
		}
		for a, amt := range want {
			if _, ok := got[a]; !ok {
				t.Errorf("%s (%s): holder %s (%s on the chain) missing from the rich list", denom, contract, a, amt)
			}
			holders++
		}
	}
	t.Logf("rich list = the chain's balance table: %d denoms, %d holders", len(chain), holders)
}

// TestRichListFromStartHeight starts each rollup's store at START_HEIGHT 30 (chain state read
// there, not genesis) and requires the rich list at the tip to equal the chain's balance
// table, on both backends; on EVM also the ERC-721 tokens seen since (checkEVMNFTsFrom).
func TestRichListFromStartHeight(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	for _, r := range rollups {
		for _, be := range backends {
			t.Run(r.kind+"/"+be.name, func(t *testing.T) {
				db := openStore(t, be.dsn(t))
				ep := n.Endpoints()[r.chainID]
				src, err := ingest.DialSource(ep.RPC, ep.REST, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := withEVM(ep, r, src, nil, tip, nil); err != nil {
					t.Fatal(err)
				}
				p, err := ingest.New(profile.Ingest(ingest.Config{ChainID: r.chainID, VMType: r.kind, AccountPrefix: "init", RichList: true,
					StartHeight: 30, StopAtHeight: tip, PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond,
					RetryMax: 100 * time.Millisecond}, profile.Options{}), src, db, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				if err := p.Run(ctx); err != nil {
					t.Fatal(err)
				}
				dc, _ := n.Chain(r.chainID)
				checkRichList(t, db, dc, ep, tip)
				if r.vm() == vmkind.EVM {
					// The same store serves the ERC-721 tokens touched since START_HEIGHT,
					// those minted before it included.
					if n := checkEVMNFTsFrom(t, newAPI(r, db), dc, 30, tip); n == 0 {
						t.Error("no token minted before START_HEIGHT was transferred after it: the backfill is untested")
					} else {
						t.Logf("%d ERC-721 tokens minted before START_HEIGHT learnt from later transfers", n)
					}
				}
			})
		}
	}
}
