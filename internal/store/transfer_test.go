package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// transferModel: heights 1..n, each with two txs; tx i of height h moves (h*10+i) units of
// "uinit" from account h%3 to account (h+i)%4 and, on even heights, one NFT of a contract
// from account 1 to account 2 in its second tx. Account 0 sends to itself at height 3 and 6
// (h%3 = 0, (h+0)%4 = 3 or 2: no) — the self transfers are made explicit at height 4.
func transferModel(n int) ([]BlockBundle, []TransferRecord) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	contract := bytes.Repeat([]byte{0xcc}, 20)
	var bundles []BlockBundle
	var all []TransferRecord
	for h := int64(1); h <= int64(n); h++ {
		b := BlockBundle{Block: Block{ChainID: "test-1", Height: h, Hash: bytes.Repeat([]byte{byte(h)}, 32), Time: t0.Add(time.Duration(h) * time.Second)}}
		var rows TransferRows
		for i := 0; i < 2; i++ {
			hash := bytes.Repeat([]byte{byte(h), byte(i)}, 16)
			b.Txs = append(b.Txs, Tx{Hash: hash, Height: h, Index: i, JSON: []byte(`{}`)})
			tr := Transfer{TxIndex: i, MsgIndex: i - 1, Kind: TransferSend, From: acct(int(h % 3)), To: acct(int((h + int64(i)) % 4)),
				Denom: "uinit", Amount: fmt.Sprint(h*10 + int64(i))}
			if h == 4 && i == 0 {
				tr.To = tr.From
			}
			rows = append(rows, tr)
			if h%2 == 0 && i == 1 {
				rows = append(rows, Transfer{TxIndex: i, MsgIndex: 0, Kind: TransferERC721, From: acct(1), To: acct(2),
					Denom: "evm/cccc", Contract: contract, Amount: "1", TokenID: fmt.Sprint(h)})
			}
		}
		for k, r := range rows {
			all = append(all, TransferRecord{ID: TransferID(h, k), Height: h, Time: b.Block.Time, TxHash: b.Txs[r.TxIndex].Hash, MsgIndex: r.MsgIndex, Transfer: r})
		}
		b.Extensions = []ExtensionRows{rows}
		bundles = append(bundles, b)
	}
	return bundles, all
}

// TestTransfers: every list of the transfers index, on both backends, equals the brute-force
// answer over the model, page by page with cursors in both orders, with exact totals.
func TestTransfers(t *testing.T) {
	bundles, all := transferModel(12)
	contract := bytes.Repeat([]byte{0xcc}, 20)
	match := func(f TransferFilter, r TransferRecord) bool {
		if f.Account != nil {
			in, out := bytes.Equal(r.To, f.Account), bytes.Equal(r.From, f.Account)
			switch f.Direction {
			case DirectionIn:
				if !in {
					return false
				}
			case DirectionOut:
				if !out {
					return false
				}
			default:
				if !in && !out {
					return false
				}
			}
		}
		return (f.Denom == "" || r.Denom == f.Denom) && (f.Contract == nil || bytes.Equal(r.Contract, f.Contract)) &&
			(f.TxHash == nil || bytes.Equal(r.TxHash, f.TxHash)) && (f.MinHeight == 0 || r.Height >= f.MinHeight) &&
			(f.MaxHeight == 0 || r.Height <= f.MaxHeight)
	}
	filters := map[string]TransferFilter{
		"all":             {},
		"account 0 both":  {Account: acct(0)},
		"account 1 both":  {Account: acct(1)},
		"account 2 in":    {Account: acct(2), Direction: DirectionIn},
		"account 1 out":   {Account: acct(1), Direction: DirectionOut},
		"account 2 nft":   {Account: acct(2), Denom: "evm/cccc"},
		"contract":        {Contract: contract},
		"denom":           {Denom: "uinit"},
		"tx":              {TxHash: bytes.Repeat([]byte{4, 1}, 16)},
		"heights 3..7":    {Account: acct(1), MinHeight: 3, MaxHeight: 7},
		"unknown account": {Account: acct(9)},
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, bundles[:5]); err != nil {
			t.Fatal(err)
		}
		if err := db.WriteBlocks(ctx, bundles[5:]); err != nil {
			t.Fatal(err)
		}
		for name, f := range filters {
			var want []TransferRecord
			for _, r := range all {
				if match(f, r) {
					want = append(want, r)
				}
			}
			for _, desc := range []bool{false, true} {
				exp := slices.Clone(want)
				if desc {
					slices.Reverse(exp)
				}
				var got []TransferRecord
				p := Page{Limit: 3, Desc: desc, CountTotal: true}
				for {
					page, err := db.Transfers(ctx, f, p)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if page.Total != int64(len(want)) {
						t.Errorf("%s desc=%v: total %d, want %d", name, desc, page.Total, len(want))
					}
					if len(page.Transfers) == 0 {
						break
					}
					got = append(got, page.Transfers...)
					p.After = Cursor{Kind: CursorSequence, Value: page.Transfers[len(page.Transfers)-1].ID}
				}
				if len(got) != len(exp) {
					t.Fatalf("%s desc=%v: %d transfers, want %d", name, desc, len(got), len(exp))
				}
				for i := range got {
					g, w := got[i], exp[i]
					if g.ID != w.ID || g.Height != w.Height || !g.Time.Equal(w.Time) || !bytes.Equal(g.TxHash, w.TxHash) ||
						g.MsgIndex != w.MsgIndex || g.Kind != w.Kind || !bytes.Equal(g.From, w.From) || !bytes.Equal(g.To, w.To) ||
						g.Denom != w.Denom || !bytes.Equal(g.Contract, w.Contract) || g.Amount != w.Amount || g.TokenID != w.TokenID {
						t.Fatalf("%s desc=%v #%d: got %+v, want %+v", name, desc, i, g, w)
					}
				}
			}
			// An offset page is the same rows as the cursor walk, with the same total, and so is
			// one past the end (no row to carry the total: it is read alone).
			for _, off := range []int64{1, int64(len(want)) + 1} {
				page, err := db.Transfers(ctx, f, Page{Limit: 2, Offset: off, CountTotal: true})
				if err != nil {
					t.Fatal(err)
				}
				if n := min(2, max(0, len(want)-int(off))); len(page.Transfers) != n || (n > 0 && page.Transfers[0].ID != want[off].ID) {
					t.Errorf("%s: offset %d page %d rows", name, off, len(page.Transfers))
				}
				if page.Total != int64(len(want)) {
					t.Errorf("%s: offset %d page total %d, want %d", name, off, page.Total, len(want))
				}
			}
			// Uncounted, the total is zero.
			if page, err := db.Transfers(ctx, f, Page{Limit: 2}); err != nil || page.Total != 0 || len(page.Transfers) != min(2, len(want)) {
				t.Errorf("%s: uncounted page: total %d, %d rows, %v", name, page.Total, len(page.Transfers), err)
			}
		}
	})
}

// TestHeightRange: a time range is the heights whose block time lies in it, inclusive.
func TestHeightRange(t *testing.T) {
	bundles, _ := transferModel(10)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, bundles); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			start, end time.Time
			lo, hi     int64
			empty      bool
		}{
			{t0.Add(3 * time.Second), t0.Add(5 * time.Second), 3, 5, false},
			{t0.Add(2500 * time.Millisecond), t0.Add(5500 * time.Millisecond), 3, 5, false},
			{time.Time{}, t0.Add(2 * time.Second), 1, 2, false},
			{t0.Add(9 * time.Second), time.Time{}, 9, 10, false},
			{t0.Add(11 * time.Second), time.Time{}, 0, 0, true},
			{time.Time{}, t0, 0, 0, true},
			{t0.Add(4200 * time.Millisecond), t0.Add(4800 * time.Millisecond), 5, 4, true},
		}
		for _, c := range cases {
			lo, hi, empty, err := db.HeightRange(ctx, c.start, c.end)
			if err != nil {
				t.Fatal(err)
			}
			if empty != c.empty || (!empty && (lo != c.lo || hi != c.hi)) {
				t.Errorf("%v..%v: %d..%d empty=%v, want %d..%d empty=%v", c.start, c.end, lo, hi, empty, c.lo, c.hi, c.empty)
			}
		}
	})
}

// faultRows is an extension whose writer fails after the transfers writer of the same batch
// wrote its rows and counts: the fault a retried or halved write recovers from.
type faultRows struct{}

func (faultRows) WriterName() string         { return "fault" }
func (faultRows) NewWriter() ExtensionWriter { return faultWriter{} }
func (faultRows) Count() int                 { return 0 }

type faultWriter struct{}

func (faultWriter) Add(*BlockBundle, ExtensionRows, int64) {}
func (faultWriter) Write(context.Context, sqldb.Tx, string) error {
	return errors.New("injected fault")
}

// TestTransferCountsExact: the per-account counts equal COUNT(*) of the rows, on both
// backends, through what the writer does besides plain writes: a batch that fails after its
// transfers were written (rolled back with them), the same heights written again in halves
// and replayed over what committed, pruning the oldest heights, and a reset and reindex. Each
// account's list total (served from the counts) is checked against the model at every step.
func TestTransferCountsExact(t *testing.T) {
	bundles, all := transferModel(24)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		check := func(step string, minHeight, maxHeight int64) {
			t.Helper()
			if err := db.CheckTransferCounts(ctx); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			for a := 0; a < 5; a++ {
				for _, dir := range []Direction{DirectionBoth, DirectionIn, DirectionOut} {
					var want int64
					for _, r := range all {
						in, out := bytes.Equal(r.To, acct(a)), bytes.Equal(r.From, acct(a))
						if r.Height >= minHeight && r.Height <= maxHeight && ((dir == DirectionBoth && (in || out)) || (dir == DirectionIn && in) || (dir == DirectionOut && out)) {
							want++
						}
					}
					page, err := db.Transfers(ctx, TransferFilter{Account: acct(a), Direction: dir}, Page{Limit: 1, CountTotal: true})
					if err != nil {
						t.Fatal(err)
					}
					if page.Total != want {
						t.Errorf("%s: account %d direction %d: total %d, want %d", step, a, dir, page.Total, want)
					}
				}
			}
		}
		if err := db.WriteBlocks(ctx, bundles[:4]); err != nil {
			t.Fatal(err)
		}
		failing := slices.Clone(bundles[4:12])
		failing[len(failing)-1].Extensions = append(slices.Clone(failing[len(failing)-1].Extensions), faultRows{})
		if err := db.WriteBlocks(ctx, failing); err == nil {
			t.Fatal("the faulty batch committed")
		}
		check("after a failed batch", 0, 4)
		// The writer's halving: the failed run again in halves, the first half twice (a replay
		// of committed heights is a no-op).
		for _, run := range [][]BlockBundle{bundles[4:8], bundles[4:8], bundles[8:12], bundles[6:16], bundles[16:]} {
			if err := db.WriteBlocks(ctx, run); err != nil {
				t.Fatal(err)
			}
		}
		check("after halves and replays", 0, 24)
		if _, err := db.Prune(ctx, 15, 4); err != nil {
			t.Fatal(err)
		}
		check("after pruning below 10", 10, 24)
		if err := db.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := queryRow(ctx, db.be.Reader(), "SELECT COUNT(*) FROM transfer_account", nil, &n); err != nil || n != 0 {
			t.Fatalf("after reset: %d counts, err %v", n, err)
		}
		if err := db.WriteBlocks(ctx, bundles); err != nil {
			t.Fatal(err)
		}
		check("after reindex", 0, 24)
	})
}
