package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// bankChain is the fake chain with a bank transfer of 5 umin from holder A to holder B in
// every tx, and a genesis that under-reports A (3 umin instead of 1000), as if A's balance
// had moved without an event the list could see.
type bankChain struct{ *fakeChain }

var (
	holderA = append(make([]byte, 19), 0xa)
	holderB = append(make([]byte, 19), 0xb)
)

func bech(b []byte) string { s, _ := address.Bech32("init", b); return s }

func (c bankChain) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	rs, err := c.fakeChain.BlockResults(ctx, h)
	for i := range rs {
		rs[i].Events = append(rs[i].Events, Event{Type: "transfer", Attributes: []EventAttribute{
			{Key: "recipient", Value: bech(holderB)}, {Key: "sender", Value: bech(holderA)}, {Key: "amount", Value: "5umin"}}})
	}
	return rs, err
}

// sentBy is the umin A has sent by the end of block h (5 per tx).
func sentBy(h int64) int64 {
	n := int64(0)
	for k := int64(1); k <= h; k++ {
		n += int64(fakeTxs(k))
	}
	return 5 * n
}

func (c bankChain) Genesis(ctx context.Context) (json.RawMessage, error) {
	return json.RawMessage(fmt.Sprintf(`{"bank":{"balances":[{"address":%q,"coins":[{"denom":"UMIN","amount":"3"}]}]}}`, bech(holderA))), nil
}

func (c bankChain) ContractByDenom(ctx context.Context, denom string) (string, error) {
	return "", fmt.Errorf("not an EVM chain")
}

func (c bankChain) BankBalances(ctx context.Context, addr string, h int64) ([]BankCoin, error) {
	if addr != bech(holderA) {
		return nil, fmt.Errorf("unexpected balance query for %s", addr)
	}
	return []BankCoin{{Denom: "UMIN", Amount: fmt.Sprint(1000 - sentBy(h))}}, nil
}

// TestRichListCorrectsNegativeBalance: a Wasm-style rich list whose changes would take A below
// zero re-reads A from the chain at that height, logs the correction, and ends exact.
func TestRichListCorrectsNegativeBalance(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "rl.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const top = 40
	cfg := fastConfig()
	cfg.StopAtHeight = top
	cfg.Extensions = []Extension{RichList(BankRichList())}
	rec := &logRecorder{msg: "rich list: balance corrected from the chain"}
	p, err := New(cfg, bankChain{newFakeChain(top, 0)}, db, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	pg, err := db.Holders(ctx, "umin", store.Page{Limit: 10, Desc: true, CountTotal: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*big.Int{string(holderA): big.NewInt(1000 - sentBy(top)), string(holderB): big.NewInt(sentBy(top))}
	if pg.Total != 2 || len(pg.Holders) != 2 {
		t.Fatalf("%d holders, total %d", len(pg.Holders), pg.Total)
	}
	for _, h := range pg.Holders {
		if w := want[string(h.Account)]; w == nil || w.Cmp(h.Amount) != 0 {
			t.Errorf("holder %x: %s, want %v", h.Account, h.Amount, w)
		}
	}
	if len(rec.records) != 1 {
		t.Errorf("%d corrections logged, want 1 (the first block that took A below zero)", len(rec.records))
	}
}
