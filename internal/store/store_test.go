package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// backends opens one empty store per backend; every conformance test runs on each.
func backends(t *testing.T) map[string]func(t *testing.T) *DB {
	return map[string]func(t *testing.T) *DB{
		"sqlite": func(t *testing.T) *DB {
			return openT(t, "sqlite:"+filepath.Join(t.TempDir(), "idx.db"))
		},
		"postgres": func(t *testing.T) *DB {
			return openT(t, testutil.PostgresDSN(t))
		},
	}
}

func openT(t *testing.T, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func forEach(t *testing.T, f func(t *testing.T, db *DB)) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) { f(t, open(t)) })
	}
}

// model is a tiny dataset plus the brute-force answers the store must reproduce.
type model struct {
	bundles []BlockBundle
	txs     []modelTx // by sequence-1
}

type modelTx struct {
	seq, height int64
	accounts    map[string]bool // addr → signer
	msgs        map[string]bool
	json        string
}

func acct(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 20) }

// buildModel: heights 1..n, block h holds h%4 txs (so some blocks are empty); tx s is signed by
// account s%5, touches account (s*3)%7 too, and carries MsgSend plus, every third tx, MsgCall.
func buildModel(n int) model {
	var m model
	seq := int64(0)
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for h := int64(1); h <= int64(n); h++ {
		b := BlockBundle{Block: Block{ChainID: "test-1", Height: h, Hash: bytes.Repeat([]byte{byte(h)}, 32),
			Time: t0.Add(time.Duration(h) * 1500 * time.Millisecond), BlockTimeMs: 1500}}
		if h%3 != 0 {
			b.Block.Proposer = &Proposer{Moniker: "node0", OperatorAddress: "initvaloper1x"}
		}
		for i := 0; i < int(h%4); i++ {
			seq++
			signer := acct(int(seq % 5))
			other := acct(int(seq*3%7) + 10)
			msgs := []string{"cosmos.bank.v1beta1.MsgSend"}
			if seq%3 == 0 {
				msgs = append(msgs, "/minievm.evm.v1.MsgCall", "cosmos.bank.v1beta1.MsgSend")
			}
			js := fmt.Sprintf(`{"txhash":"%X","height":"%d", "seq": %d}`, seq, h, seq)
			b.Txs = append(b.Txs, Tx{Hash: []byte(fmt.Sprintf("hash-%d", seq)), Height: h, Index: i, Signer: signer,
				MsgTypes: msgs, Accounts: []TxAccount{{Addr: other}, {Addr: signer, Signer: true}}, JSON: json.RawMessage(js)})
			m.txs = append(m.txs, modelTx{seq: seq, height: h, json: js,
				accounts: map[string]bool{string(signer): true, string(other): false},
				msgs:     map[string]bool{"cosmos.bank.v1beta1.MsgSend": true, "minievm.evm.v1.MsgCall": seq%3 == 0}})
		}
		b.Block.TxCount = len(b.Txs)
		if len(b.Txs) > 0 {
			b.Block.TotalFee = json.RawMessage(`[{"denom":"umin","amount":"5"}]`)
		}
		m.bundles = append(m.bundles, b)
	}
	return m
}

func (m model) want(f TxFilter, p Page) ([]int64, int64) {
	var all []int64
	for _, tx := range m.txs {
		if f.Height != 0 && tx.height != f.Height {
			continue
		}
		if (f.MinHeight > 0 && tx.height < f.MinHeight) || (f.MaxHeight > 0 && tx.height > f.MaxHeight) {
			continue
		}
		if f.Account != nil {
			s, ok := tx.accounts[string(f.Account)]
			if !ok || (f.SignerOnly && !s) {
				continue
			}
		}
		if f.MsgTypes != nil {
			hit := false
			for _, mt := range f.MsgTypes {
				hit = hit || tx.msgs[strings.TrimPrefix(mt, "/")]
			}
			if !hit {
				continue
			}
		}
		all = append(all, tx.seq)
	}
	total := int64(len(all))
	if p.Desc {
		slices.Reverse(all)
	}
	var page []int64
	skip := p.Offset
	for _, s := range all {
		if p.After.Kind == CursorSequence && ((p.Desc && s >= p.After.Value) || (!p.Desc && s <= p.After.Value)) {
			continue
		}
		if p.After.Kind == CursorHeight {
			h := m.txs[s-1].height
			if (p.Desc && h >= p.After.Value) || (!p.Desc && h <= p.After.Value) {
				continue
			}
		}
		if p.After.Kind == CursorNone && skip > 0 {
			skip--
			continue
		}
		if len(page) < p.Limit {
			page = append(page, s)
		}
	}
	if !p.CountTotal {
		total = 0
	}
	return page, total
}

func TestTxsConformance(t *testing.T) {
	m := buildModel(24)
	filters := []TxFilter{
		{},
		{Height: 7},
		{Height: 8}, // empty block
		{Height: 99},
		{Account: acct(1)},
		{Account: acct(1), SignerOnly: true},
		{Account: acct(13)},
		{Account: acct(13), SignerOnly: true},
		{Account: acct(99)},
		{MsgTypes: []string{"minievm.evm.v1.MsgCall"}},
		{MsgTypes: []string{"/minievm.evm.v1.MsgCall", "cosmos.bank.v1beta1.MsgSend"}},
		{MsgTypes: []string{"nope.Msg"}},
		{MsgTypes: []string{}},
		{Account: acct(2), MsgTypes: []string{"minievm.evm.v1.MsgCall"}},
		{Account: acct(2), SignerOnly: true, MsgTypes: []string{"minievm.evm.v1.MsgCall", "x"}},
		{Height: 11, MsgTypes: []string{"minievm.evm.v1.MsgCall"}},
		{Height: 11, Account: acct(3)},
		// Height ranges (a time range's heights): dense, by account, by type, open sides,
		// bounds on empty blocks and past the head.
		{MinHeight: 5, MaxHeight: 14},
		{MinHeight: 8, MaxHeight: 8},
		{MinHeight: 20},
		{MaxHeight: 6, Account: acct(1)},
		{MinHeight: 4, MaxHeight: 17, Account: acct(13), SignerOnly: true},
		{MinHeight: 4, MaxHeight: 17, Account: acct(1), SignerOnly: true},
		{MinHeight: 9, MaxHeight: 22, MsgTypes: []string{"minievm.evm.v1.MsgCall"}},
		{MinHeight: 9, MaxHeight: 22, MsgTypes: []string{"minievm.evm.v1.MsgCall", "cosmos.bank.v1beta1.MsgSend"}},
		{MinHeight: 3, MaxHeight: 10, Account: acct(2), MsgTypes: []string{"minievm.evm.v1.MsgCall"}},
		{MinHeight: 30, MaxHeight: 40},
		{MinHeight: 12, MaxHeight: 11},
	}
	pages := []Page{
		{Limit: 100, Desc: true, CountTotal: true},
		{Limit: 3, Desc: true, CountTotal: true},
		{Limit: 3, Desc: false, CountTotal: true},
		{Limit: 2, Desc: true, Offset: 3, CountTotal: true},
		{Limit: 2, Desc: false, Offset: 5},
		{Limit: 2, Desc: false, Offset: 1 << 62},
		{Limit: 2, Desc: true, Offset: 1<<63 - 1, CountTotal: true},
		{Limit: 4, Desc: true, After: Cursor{CursorSequence, 20}, CountTotal: true},
		{Limit: 4, Desc: false, After: Cursor{CursorSequence, 20}},
		{Limit: 4, Desc: false, After: Cursor{CursorSequence, 1<<63 - 1}},
		{Limit: 4, Desc: true, After: Cursor{CursorSequence, -5}},
		{Limit: 4, Desc: true, After: Cursor{CursorHeight, 10}, CountTotal: true},
		{Limit: 4, Desc: false, After: Cursor{CursorHeight, 10}},
		{Limit: 4, Desc: true, After: Cursor{CursorHeight, 1000}},
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles[:10]); err != nil {
			t.Fatal(err)
		}
		if err := db.WriteBlocks(ctx, m.bundles[10:]); err != nil {
			t.Fatal(err)
		}
		for fi, f := range filters {
			for pi, p := range pages {
				got, err := db.Txs(ctx, f, p)
				if err != nil {
					t.Fatalf("filter %d page %d: %v", fi, pi, err)
				}
				wantSeq, wantTotal := m.want(f, p)
				var gotSeq []int64
				for _, tx := range got.Txs {
					gotSeq = append(gotSeq, tx.Sequence)
					if string(tx.JSON) != m.txs[tx.Sequence-1].json || tx.Height != m.txs[tx.Sequence-1].height {
						t.Errorf("filter %d page %d: seq %d JSON %s", fi, pi, tx.Sequence, tx.JSON)
					}
				}
				if !slices.Equal(gotSeq, wantSeq) || got.Total != wantTotal {
					t.Errorf("filter %+v page %+v:\n got %v total %d\nwant %v total %d", f, p, gotSeq, got.Total, wantSeq, wantTotal)
				}
				if got.Txs == nil {
					t.Errorf("filter %d page %d: nil slice", fi, pi)
				}
			}
		}
		// By hash.
		tx, err := db.Tx(ctx, []byte("hash-5"))
		if err != nil || tx.Sequence != 5 || string(tx.JSON) != m.txs[4].json {
			t.Errorf("Tx(hash-5) = %+v, %v", tx, err)
		}
		if _, err := db.Tx(ctx, []byte("nope")); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing tx: %v", err)
		}
	})
}

func TestBlocksConformance(t *testing.T) {
	m := buildModel(12)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if bp, err := db.Blocks(ctx, Page{Limit: 10, Desc: true, CountTotal: true}); err != nil || len(bp.Blocks) != 0 || bp.Total != 0 {
			t.Fatalf("empty store: %+v %v", bp, err)
		}
		if avg, err := db.AvgBlockTime(ctx, 100); err != nil || avg != 0 {
			t.Fatalf("empty avg: %v %v", avg, err)
		}
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		heights := func(p Page) ([]int64, int64) {
			bp, err := db.Blocks(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			var hs []int64
			for _, b := range bp.Blocks {
				hs = append(hs, b.Height)
			}
			return hs, bp.Total
		}
		cases := []struct {
			p     Page
			want  []int64
			total int64
		}{
			{Page{Limit: 3, Desc: true, CountTotal: true}, []int64{12, 11, 10}, 12},
			{Page{Limit: 3, Desc: false}, []int64{1, 2, 3}, 0},
			{Page{Limit: 3, Desc: true, Offset: 10, CountTotal: true}, []int64{2, 1}, 12},
			{Page{Limit: 3, Desc: false, Offset: 10}, []int64{11, 12}, 0},
			{Page{Limit: 3, Desc: false, Offset: 1 << 62}, nil, 0},
			{Page{Limit: 3, Desc: true, After: Cursor{CursorHeight, 5}}, []int64{4, 3, 2}, 0},
			{Page{Limit: 3, Desc: false, After: Cursor{CursorHeight, 10}}, []int64{11, 12}, 0},
			// Sequence 4 is in block 3 (blocks 1,2,3 hold 1,2,3 txs).
			{Page{Limit: 2, Desc: true, After: Cursor{CursorSequence, 4}}, []int64{2, 1}, 0},
			{Page{Limit: 2, Desc: false, After: Cursor{CursorSequence, 4}}, []int64{4, 5}, 0},
		}
		for _, c := range cases {
			got, total := heights(c.p)
			if !slices.Equal(got, c.want) || total != c.total {
				t.Errorf("%+v: got %v/%d want %v/%d", c.p, got, total, c.want, c.total)
			}
		}
		b, err := db.Block(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		want := m.bundles[2].Block
		if b.Height != 3 || !bytes.Equal(b.Hash, want.Hash) || !b.Time.Equal(want.Time) || b.Time.Location() != time.UTC ||
			b.Proposer != nil || b.TxCount != 3 || string(b.TotalFee) != string(want.TotalFee) || b.ChainID != "test-1" {
			t.Errorf("block 3 = %+v", b)
		}
		if b, _ := db.Block(ctx, 4); string(b.TotalFee) != "null" || b.Proposer == nil || b.Proposer.Moniker != "node0" {
			t.Errorf("block 4 = %+v", b)
		}
		if _, err := db.Block(ctx, 13); !errors.Is(err, ErrNotFound) {
			t.Errorf("block 13: %v", err)
		}
		avg, err := db.AvgBlockTime(ctx, 100)
		if err != nil || avg != 1.5 {
			t.Errorf("avg = %v %v", avg, err)
		}
		if avg, _ := db.AvgBlockTime(ctx, 1); avg != 0 {
			t.Errorf("avg over 1 block = %v", avg)
		}
	})
}

// Many concurrent block reads on the read pool each get their own block, and a missing height
// its ErrNotFound, exactly as when read alone.
func TestConcurrentBlockReads(t *testing.T) {
	m := buildModel(40)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 400 {
			h := int64(i%45 + 1) // 41..45 are not stored
			wg.Go(func() {
				b, err := db.Block(ctx, h)
				if h > 40 {
					if !errors.Is(err, ErrNotFound) {
						t.Errorf("block %d: %v, want ErrNotFound", h, err)
					}
					return
				}
				if want := m.bundles[h-1].Block; err != nil || b.Height != h || !bytes.Equal(b.Hash, want.Hash) || !b.Time.Equal(want.Time) {
					t.Errorf("block %d = %+v, %v", h, b, err)
				}
			})
		}
		wg.Wait()
	})
}

func dump(t *testing.T, db *DB) string {
	t.Helper()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteIdempotentAndAtomic(t *testing.T) {
	m := buildModel(10)
	dumps := map[string]string{}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles[:5]); err != nil {
			t.Fatal(err)
		}
		before := dump(t, db)
		// Re-writing indexed heights is a no-op.
		if err := db.WriteBlocks(ctx, m.bundles[2:5]); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		if dump(t, db) != before {
			t.Fatal("re-writing indexed heights changed the store")
		}
		// A gap is refused.
		if err := db.WriteBlocks(ctx, m.bundles[6:8]); !errors.Is(err, ErrHeightGap) {
			t.Fatalf("gap: %v", err)
		}
		if err := db.WriteBlocks(ctx, []BlockBundle{m.bundles[5], m.bundles[7]}); !errors.Is(err, ErrHeightGap) {
			t.Fatalf("non-consecutive: %v", err)
		}
		// A batch failing half-way leaves nothing behind.
		bad := slices.Clone(m.bundles[5:8])
		bad[1].Txs = slices.Clone(bad[1].Txs)
		bad[1].Txs[0].Height = 1
		if err := db.WriteBlocks(ctx, bad); err == nil {
			t.Fatal("bad batch accepted")
		}
		if dump(t, db) != before {
			t.Fatal("failed batch left rows behind")
		}
		// A batch the database rejects half-way (blocks inserted, then a tx sequence clash
		// planted here) rolls back completely.
		exec := func(q string) {
			tx, err := db.be.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		exec("INSERT INTO tx (sequence, hash, height, tx_index, data) VALUES (12, 'x', 0, 0, '{}')")
		planted := dump(t, db)
		if err := db.WriteBlocks(ctx, m.bundles[5:8]); err == nil {
			t.Fatal("clashing batch accepted")
		}
		if dump(t, db) != planted {
			t.Fatal("rolled-back batch left rows behind")
		}
		exec("DELETE FROM tx WHERE sequence = 12")
		// Overlapping batch: the indexed part is skipped, the rest appended.
		if err := db.WriteBlocks(ctx, m.bundles[3:]); err != nil {
			t.Fatal(err)
		}
		if h, err := db.IndexedHeight(ctx); err != nil || h != 10 {
			t.Fatalf("height %d %v", h, err)
		}
		dumps[t.Name()] = dump(t, db)
	})
	// Equal data dumps to equal bytes on both backends.
	var ds []string
	for _, d := range dumps {
		ds = append(ds, d)
	}
	if len(ds) == 2 && ds[0] != ds[1] {
		t.Errorf("sqlite and postgres dumps differ:\n%s\n---\n%s", ds[0], ds[1])
	}
}

func TestOpenRejectsUnknownDSN(t *testing.T) {
	_, err := Open(context.Background(), "mysql://user:secret@host/db", nil)
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err = %v", err)
	}
}

// TestRolledBackBatchLeavesNoTrace: a batch that introduces new accounts and fails in the
// database, then succeeds on retry, leaves exactly what an uninterrupted run leaves (no id
// gaps, no advanced counters).
func TestRolledBackBatchLeavesNoTrace(t *testing.T) {
	m := buildModel(8)
	// A fresh account only in the last block, so the failing batch must insert it.
	last := &m.bundles[7]
	last.Txs = append(slices.Clone(last.Txs), Tx{Hash: []byte("extra"), Height: 8, Index: len(last.Txs),
		Signer: acct(200), MsgTypes: []string{"new.Msg"}, JSON: json.RawMessage(`{}`)})
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			ref := open(t)
			if err := ref.WriteBlocks(ctx, m.bundles); err != nil {
				t.Fatal(err)
			}
			db := open(t)
			if err := db.WriteBlocks(ctx, m.bundles[:6]); err != nil {
				t.Fatal(err)
			}
			var lastSeq int64
			for _, b := range m.bundles[:8] {
				lastSeq += int64(len(b.Txs))
			}
			tx, err := db.be.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Exec(ctx, "INSERT INTO tx (sequence, hash, height, tx_index, data) VALUES (?, ?, 0, 0, '{}')", lastSeq, []byte("x")); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.WriteBlocks(ctx, m.bundles[6:]); err == nil {
				t.Fatal("clashing batch accepted")
			}
			tx, _ = db.be.Begin(ctx)
			if err := tx.Exec(ctx, "DELETE FROM tx WHERE sequence = ?", lastSeq); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.WriteBlocks(ctx, m.bundles[6:]); err != nil {
				t.Fatal(err)
			}
			if a, b := dump(t, ref), dump(t, db); a != b {
				t.Fatalf("retried run differs from the uninterrupted one:\n%s\n---\n%s", a, b)
			}
		})
	}
}

// The refresh threshold: always after the first write, then once the rows written since reach
// max(100, min(50,000, the rows stored at the last refresh), 10 % of the store).
func TestStatsKeeperThreshold(t *testing.T) {
	a := &countingAnalyzer{}
	k := newStatsKeeper(a, slog.New(slog.DiscardHandler))
	k.minGap = 0 // TestStatsKeeperGap checks the gap
	defer k.stop()
	steps := []struct {
		rows, total int64
		want        int
	}{
		{10, 10, 1},            // the first write always
		{89, 99, 1},            // 89 < 100 (the floor)
		{11, 110, 2},           // 100 reached
		{100, 210, 2},          // 100 < 110 (the store has not doubled)
		{10, 220, 3},           // 110 reached: doubled
		{219, 439, 3},          // 219 < 220
		{1, 440, 4},            // doubled again
		{40_000, 40_440, 5},    // doubling: 40,000 ≥ 440
		{40_000, 80_440, 5},    // 40,000 < 40,440
		{1_000, 81_440, 6},     // 41,000 ≥ 40,440
		{49_000, 130_440, 6},   // 49,000 < 50,000: past 50,000 rows the doubling stops
		{1_000, 131_440, 7},    // 50,000 reached
		{60_000, 1_000_000, 7}, // 60,000 < 10 % of 1,000,000
		{40_000, 1_040_000, 7}, // 100,000 < 104,000
		{4_000, 1_044_000, 7},  // 104,000 < 104,400
		{1_000, 1_045_000, 8},  // 105,000 ≥ 104,500
	}
	for i, s := range steps {
		k.wrote(s.rows, s.total)
		k.wait()
		if got := a.n(); got != s.want {
			t.Fatalf("step %d: %d refreshes, want %d", i, got, s.want)
		}
	}
}

// TestStatsKeeperGap: a refresh due within minGap of the last one starts when the gap ends,
// without another write; one waiting at stop never starts.
func TestStatsKeeperGap(t *testing.T) {
	a := &countingAnalyzer{}
	k := newStatsKeeper(a, slog.New(slog.DiscardHandler))
	k.minGap = 100 * time.Millisecond
	start := time.Now()
	k.wrote(10, 10) // the first write: at once
	k.wait()
	k.wrote(1_000, 1_010) // due, within the gap
	k.wait()
	if got := a.n(); got != 1 {
		t.Fatalf("%d refreshes within the gap, want 1", got)
	}
	for a.n() < 2 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the waiting refresh never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := time.Since(start); d < k.minGap {
		t.Fatalf("second refresh after %v, before the %v gap", d, k.minGap)
	}
	k.wait()
	k.wrote(5_000, 6_010) // due again, within the new gap
	k.stop()
	time.Sleep(2 * k.minGap)
	if got := a.n(); got != 2 {
		t.Fatalf("%d refreshes: one waiting at stop ran", got)
	}
}

type countingAnalyzer struct {
	mu    sync.Mutex
	count int
}

func (c *countingAnalyzer) analyze(context.Context) error {
	c.mu.Lock()
	c.count++
	c.mu.Unlock()
	return nil
}

func (c *countingAnalyzer) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

func TestStateCacheNeverGoesBack(t *testing.T) {
	var c stateCache
	t0 := time.Unix(1000, 0)
	if _, ok := c.get(t0); ok {
		t.Fatal("empty cache answered")
	}
	c.put(state{height: 5, firstHeight: 1, lastSequence: 50}, t0)
	// A read that started before a commit and finished after it.
	c.put(state{height: 4, firstHeight: 1, lastSequence: 40}, t0.Add(time.Millisecond))
	if s, ok := c.get(t0.Add(2 * time.Millisecond)); !ok || s.height != 5 {
		t.Fatalf("got %+v %v, want height 5", s, ok)
	}
	if _, ok := c.get(t0.Add(stateTTL)); ok {
		t.Fatal("expired row answered")
	}
	c.put(state{height: 5, firstHeight: 1, lastSequence: 50}, t0.Add(stateTTL))
	if s, ok := c.get(t0.Add(stateTTL + time.Millisecond)); !ok || s.height != 5 {
		t.Fatalf("refreshed row: got %+v %v", s, ok)
	}
}

// TestMsgTypesLeadingSlash: a type URL written with its leading '/', as in a tx's "@type",
// selects the same txs as without it, on every plan that filters by type.
func TestMsgTypesLeadingSlash(t *testing.T) {
	m := buildModel(24)
	call, send := "minievm.evm.v1.MsgCall", "cosmos.bank.v1beta1.MsgSend"
	cases := []struct {
		name         string
		bare, slashd TxFilter
	}{
		{"one type", TxFilter{MsgTypes: []string{call}}, TxFilter{MsgTypes: []string{"/" + call}}},
		{"two types", TxFilter{MsgTypes: []string{call, send}}, TxFilter{MsgTypes: []string{"/" + call, "/" + send}}},
		{"both forms of one type", TxFilter{MsgTypes: []string{call}}, TxFilter{MsgTypes: []string{"/" + call, call}}},
		{"with an account", TxFilter{Account: acct(2), MsgTypes: []string{call}}, TxFilter{Account: acct(2), MsgTypes: []string{"/" + call}}},
		{"within a height", TxFilter{Height: 11, MsgTypes: []string{call}}, TxFilter{Height: 11, MsgTypes: []string{"/" + call}}},
	}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			for _, p := range []Page{{Limit: 100, CountTotal: true}, {Limit: 2, Desc: true, Offset: 1, CountTotal: true}} {
				want, err := db.Txs(ctx, c.bare, p)
				if err != nil {
					t.Fatal(err)
				}
				got, err := db.Txs(ctx, c.slashd, p)
				if err != nil {
					t.Fatal(err)
				}
				if want.Total == 0 || (p.Offset == 0 && len(want.Txs) == 0) {
					t.Fatalf("%s: the bare form matches nothing; the case proves nothing", c.name)
				}
				if !slices.EqualFunc(got.Txs, want.Txs, func(a, b TxRecord) bool { return a.Sequence == b.Sequence }) || got.Total != want.Total {
					t.Errorf("%s %+v: with the slash %d txs (total %d), without %d (total %d)", c.name, p, len(got.Txs), got.Total, len(want.Txs), want.Total)
				}
			}
		}
	})
}

// The statistics keeper counts the extension tables' rows too: a block of balance changes or
// NFT changes without txs grows those tables alone.
func TestExtensionRows(t *testing.T) {
	for _, c := range []struct {
		name    string
		bundles []BlockBundle
		want    int64
	}{
		{"none", []BlockBundle{{Txs: make([]Tx, 3)}}, 0},
		{"every kind", []BlockBundle{
			{Extensions: []ExtensionRows{make(EVMRows, 3), &NFTRows{NFTs: make([]NFTChange, 2), NotNFT: make([][]byte, 5)}}},
			{Extensions: []ExtensionRows{&RichListChanges{Changes: make([]BalanceChange, 4), Sets: make([]BalanceSet, 1)}, TransferRows(make([]Transfer, 6))}},
		}, 16},
	} {
		if got := extensionRows(c.bundles); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.want)
		}
	}
}
