package ingest

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// flakyBankChain is bankChain whose results of one height carry an unreadable bank event the
// first time they are read, and whose balance queries fail the first failBalances times: a
// rich list that fails on a block and whose correction cannot be read for a while.
type flakyBankChain struct {
	bankChain
	badHeight    int64
	readBad      sync.Once
	failBalances atomic.Int64
}

func (c *flakyBankChain) BlockResults(ctx context.Context, h int64) ([]TxResult, error) {
	rs, err := c.bankChain.BlockResults(ctx, h)
	if err == nil && h == c.badHeight && len(rs) > 0 {
		bad := false
		c.readBad.Do(func() { bad = true })
		if bad {
			rs = append([]TxResult(nil), rs...)
			rs[0].Events = append(append([]Event(nil), rs[0].Events...), Event{Type: "transfer", Attributes: []EventAttribute{
				{Key: "recipient", Value: bech(holderB)}, {Key: "sender", Value: bech(holderA)}, {Key: "amount", Value: "5"}}})
		}
	}
	return rs, err
}

func (c *flakyBankChain) BankBalances(ctx context.Context, addr string, h int64) ([]BankCoin, error) {
	if c.failBalances.Add(-1) >= 0 {
		return nil, errors.New("REST 503")
	}
	return c.bankChain.BankBalances(ctx, addr, h)
}

// TestRichListFailsOnABlock: a block whose rich-list changes cannot be read (an unreadable bank
// event, then a balance correction whose query fails) does not hold the blocks back: they are
// all written, the rich list falls behind, reports it in Ready, and its follower re-reads the
// heights it missed and corrects the balance once the chain answers, ending exact.
func TestRichListFailsOnABlock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "rl.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const top = 40
	src := &flakyBankChain{bankChain: bankChain{newFakeChain(top, 0)}, badHeight: 3}
	src.failBalances.Store(1 << 40) // the corrections cannot be read until released below
	cfg := fastConfig()
	cfg.ReadyMaxLag = 2
	cfg.Extensions = []Extension{RichList(BankRichList())}
	rec := &logRecorder{msg: "rich list behind the blocks; it retries on its own and blocks, txs and NFTs go on"}
	p, err := New(cfg, src, db, slog.New(rec), nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for {
		h, err := db.IndexedHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h == top {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if rh, _ := db.RichListHeight(ctx); rh >= top {
		t.Fatalf("rich list at %d with its corrections unreadable", rh)
	}
	// p.Ready reads the chain head through the fake too; the rich list's part is what counts.
	var nr *NotReadyError
	if err := p.exts[0].ready(top); !errors.As(err, &nr) || nr.Reason != NotReadyRichList {
		t.Fatalf("rich list readiness while behind: %v", err)
	}
	src.failBalances.Store(0)
	for {
		rh, err := db.RichListHeight(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rh == top {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("rich list stuck at %d", rh)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pg, err := db.Holders(context.Background(), "umin", store.Page{Limit: 10, Desc: true, CountTotal: true})
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
		t.Errorf("%d 'behind' lines, want 1", len(rec.records))
	}
}
