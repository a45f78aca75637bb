package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// evmModel is a small EVM dataset: heights 1..6, block h holding h%3 EVM txs; tx k (1-based
// sequence) is sent by account k%3 and touches account 9 when k is even.
func evmModel() (bundles []BlockBundle, seqs map[string][]int64, signed map[string][]int64, heights map[int64][]int64) {
	acc := func(i int) []byte { b := make([]byte, 20); b[19] = byte(i); return b }
	seqs, signed, heights = map[string][]int64{}, map[string][]int64{}, map[int64][]int64{}
	k := int64(0)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for h := int64(1); h <= 6; h++ {
		b := BlockBundle{Block: Block{ChainID: "c", Height: h, Hash: []byte{byte(h)}, Time: t0.Add(time.Duration(h) * time.Second), TotalFee: []byte("[]")}}
		var txs EVMRows
		for i := 0; i < int(h%3); i++ {
			k++
			from := acc(int(k % 3))
			t := EVMTx{Hash: []byte(fmt.Sprintf("hash-%02d", k)), Index: i, Signer: from, JSON: json.RawMessage(fmt.Sprintf(`{"k":%d}`, k))}
			seqs[string(from)] = append(seqs[string(from)], k)
			signed[string(from)] = append(signed[string(from)], k)
			if k%2 == 0 {
				t.Accounts = []TxAccount{{Addr: acc(9)}, {Addr: from}}
				seqs[string(acc(9))] = append(seqs[string(acc(9))], k)
			}
			heights[h] = append(heights[h], k)
			txs = append(txs, t)
		}
		if txs != nil {
			b.Extensions = append(b.Extensions, txs)
		}
		bundles = append(bundles, b)
	}
	return bundles, seqs, signed, heights
}

// TestEVMTxs checks every list shape (all, by height, by account, signer only) with offsets,
// both orders and sequence cursors against the model, on both backends, with the data written
// in two batches so ranks continue across transactions.
func TestEVMTxs(t *testing.T) {
	bundles, seqs, signed, heights := evmModel()
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, bundles[:3]); err != nil {
			t.Fatal(err)
		}
		if err := db.WriteBlocks(ctx, bundles[3:]); err != nil {
			t.Fatal(err)
		}
		acc := func(i int) []byte { b := make([]byte, 20); b[19] = byte(i); return b }
		var all []int64
		for k := int64(1); k <= 6; k++ {
			all = append(all, k)
		}
		cases := []struct {
			name string
			f    EVMTxFilter
			want []int64
		}{
			{"all", EVMTxFilter{}, all},
			{"height 2", EVMTxFilter{Height: 2}, heights[2]},
			{"height 3 (none)", EVMTxFilter{Height: 3}, nil},
			{"height 99", EVMTxFilter{Height: 99}, nil},
			{"account 1", EVMTxFilter{Account: acc(1)}, seqs[string(acc(1))]},
			{"account 9", EVMTxFilter{Account: acc(9)}, seqs[string(acc(9))]},
			{"account 9 signer", EVMTxFilter{Account: acc(9), SignerOnly: true}, nil},
			{"account 2 signer", EVMTxFilter{Account: acc(2), SignerOnly: true}, signed[string(acc(2))]},
			{"unknown account", EVMTxFilter{Account: acc(7)}, nil},
			// Height ranges: heights 1, 2, 4 and 5 hold sequences {1}, {2,3}, {4} and {5,6}.
			{"heights 2..4", EVMTxFilter{MinHeight: 2, MaxHeight: 4}, slices.Concat(heights[2], heights[4])},
			{"heights 5..", EVMTxFilter{MinHeight: 5}, slices.Concat(heights[5])},
			{"heights ..2", EVMTxFilter{MaxHeight: 2}, slices.Concat(heights[1], heights[2])},
			{"heights 3..3 (none)", EVMTxFilter{MinHeight: 3, MaxHeight: 3}, nil},
			{"account 1 heights 3..6", EVMTxFilter{Account: acc(1), MinHeight: 3}, inHeights(seqs[string(acc(1))], heights, 3, 6)},
			{"account 9 heights 1..4", EVMTxFilter{Account: acc(9), MaxHeight: 4}, inHeights(seqs[string(acc(9))], heights, 1, 4)},
			{"account 2 signer heights 2..5", EVMTxFilter{Account: acc(2), SignerOnly: true, MinHeight: 2, MaxHeight: 5},
				inHeights(signed[string(acc(2))], heights, 2, 5)},
		}
		for _, c := range cases {
			for _, desc := range []bool{true, false} {
				want := slices.Clone(c.want)
				if desc {
					slices.Reverse(want)
				}
				// Every offset, then a walk by cursor two at a time.
				for off := 0; off <= len(want)+1; off++ {
					pg, err := db.EVMTxs(ctx, c.f, Page{Limit: 2, Desc: desc, Offset: int64(off), CountTotal: true})
					if err != nil {
						t.Fatal(err)
					}
					exp := want[min(off, len(want)):min(off+2, len(want))]
					if got := seqsOf(pg); !slices.Equal(got, exp) || pg.Total != int64(len(want)) {
						t.Errorf("%s desc=%v offset %d: %v total %d, want %v total %d", c.name, desc, off, got, pg.Total, exp, len(want))
					}
				}
				var walked []int64
				p := Page{Limit: 2, Desc: desc}
				for i := 0; i < 10; i++ {
					pg, err := db.EVMTxs(ctx, c.f, p)
					if err != nil {
						t.Fatal(err)
					}
					if len(pg.Txs) == 0 {
						break
					}
					walked = append(walked, seqsOf(pg)...)
					p.After = Cursor{Kind: CursorSequence, Value: pg.Txs[len(pg.Txs)-1].Sequence}
				}
				if !slices.Equal(walked, want) {
					t.Errorf("%s desc=%v cursor walk %v, want %v", c.name, desc, walked, want)
				}
			}
		}
		// A height cursor continues after that block's txs.
		pg, err := db.EVMTxs(ctx, EVMTxFilter{}, Page{Limit: 10, Desc: true, After: Cursor{Kind: CursorHeight, Value: 4}})
		if err != nil || !slices.Equal(seqsOf(pg), []int64{3, 2, 1}) {
			t.Errorf("height cursor 4 desc: %v %v", seqsOf(pg), err)
		}
		pg, err = db.EVMTxs(ctx, EVMTxFilter{}, Page{Limit: 10, After: Cursor{Kind: CursorHeight, Value: 4}})
		if err != nil || !slices.Equal(seqsOf(pg), []int64{5, 6}) {
			t.Errorf("height cursor 4 asc: %v %v", seqsOf(pg), err)
		}
		r, err := db.EVMTx(ctx, []byte("hash-04"))
		if err != nil || r.Sequence != 4 || r.Height != 4 || string(r.JSON) != `{"k":4}` {
			t.Errorf("by hash: %+v %v", r, err)
		}
		if _, err := db.EVMTx(ctx, []byte("nope")); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown hash: %v", err)
		}
	})
}

func seqsOf(p TxPage) []int64 {
	var out []int64
	for _, t := range p.Txs {
		out = append(out, t.Sequence)
	}
	return out
}

// TestInternalTxs: the follower's writes (skipping what is stored, heights without calls
// advancing the height) and every list shape.
func TestInternalTxs(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		a := func(i int) []byte { b := make([]byte, 20); b[19] = byte(i); return b }
		it := func(hash string, from, to int, n int) InternalTx {
			var tob []byte
			if to > 0 {
				tob = a(to)
			}
			return InternalTx{Hash: []byte(hash), From: a(from), To: tob, JSON: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
		}
		if h, err := db.InternalTxHeight(ctx); err != nil || h != 0 {
			t.Fatalf("empty height %d %v", h, err)
		}
		b1 := []InternalBlock{{Height: 2, Txs: []InternalTx{it("x", 1, 2, 1), it("x", 2, 3, 2), it("y", 1, 1, 3)}}, {Height: 3}}
		if err := db.WriteInternalTxs(ctx, b1); err != nil {
			t.Fatal(err)
		}
		// Replaying height 3 is skipped; 5 continues.
		b2 := []InternalBlock{{Height: 3, Txs: []InternalTx{it("z", 9, 9, 99)}}, {Height: 5, Txs: []InternalTx{it("w", 3, 0, 4)}}}
		if err := db.WriteInternalTxs(ctx, b2); err != nil {
			t.Fatal(err)
		}
		if h, _ := db.InternalTxHeight(ctx); h != 5 {
			t.Errorf("height %d, want 5", h)
		}
		cases := []struct {
			f    InternalTxFilter
			want []int64
		}{
			{InternalTxFilter{}, []int64{4, 3, 2, 1}},
			{InternalTxFilter{Height: 2}, []int64{3, 2, 1}},
			{InternalTxFilter{Height: 3}, nil},
			{InternalTxFilter{Hash: []byte("x")}, []int64{2, 1}},
			{InternalTxFilter{Hash: []byte("z")}, nil},
			{InternalTxFilter{Account: a(1)}, []int64{3, 1}}, // from = to counts once
			{InternalTxFilter{Account: a(3)}, []int64{4, 2}},
			{InternalTxFilter{Account: a(9)}, nil},
		}
		for _, c := range cases {
			pg, err := db.InternalTxs(ctx, c.f, Page{Limit: 10, Desc: true, CountTotal: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := seqsOf(pg); !slices.Equal(got, c.want) || pg.Total != int64(len(c.want)) {
				t.Errorf("%+v: %v total %d, want %v", c.f, got, pg.Total, c.want)
			}
			pg, err = db.InternalTxs(ctx, c.f, Page{Limit: 1, Offset: 1, CountTotal: true})
			if err != nil {
				t.Fatal(err)
			}
			var exp []int64
			if len(c.want) > 1 {
				exp = []int64{c.want[len(c.want)-2]}
			}
			if got := seqsOf(pg); !slices.Equal(got, exp) {
				t.Errorf("%+v asc offset 1: %v, want %v", c.f, got, exp)
			}
		}
		if err := db.WriteInternalTxs(ctx, []InternalBlock{{Height: 7}, {Height: 6}}); err == nil {
			t.Error("descending heights accepted")
		}
	})
}

// TestEVMTxsFinal: a full ascending EVM tx page without a total is final and stays the same
// when more blocks arrive; pages with a total, descending ones and partial ones are not.
func TestEVMTxsFinal(t *testing.T) {
	bundles, _, _, _ := evmModel()
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, bundles[:3]); err != nil { // sequences 1..3
			t.Fatal(err)
		}
		cases := []struct {
			name string
			p    Page
			want bool
		}{
			{"full ascending", Page{Limit: 2}, true},
			{"full ascending from a cursor", Page{Limit: 2, After: Cursor{Kind: CursorSequence, Value: 1}}, true},
			{"partial ascending", Page{Limit: 5}, false},
			{"with a total", Page{Limit: 2, CountTotal: true}, false},
			{"descending", Page{Limit: 2, Desc: true}, false},
		}
		before := map[string][]int64{}
		for _, c := range cases {
			page, err := db.EVMTxs(ctx, EVMTxFilter{}, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if page.Final != c.want {
				t.Errorf("%s: Final %v, want %v", c.name, page.Final, c.want)
			}
			before[c.name] = seqsOf(page)
		}
		if err := db.WriteBlocks(ctx, bundles[3:]); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			page, err := db.EVMTxs(ctx, EVMTxFilter{}, c.p)
			if err != nil {
				t.Fatal(err)
			}
			if c.want && !slices.Equal(seqsOf(page), before[c.name]) {
				t.Errorf("final %s changed: %v, was %v", c.name, seqsOf(page), before[c.name])
			}
		}
	})
}

// inHeights keeps the sequences of seqs that lie in heights lo..hi of the model.
func inHeights(seqs []int64, heights map[int64][]int64, lo, hi int64) []int64 {
	var out []int64
	for _, k := range seqs {
		for h := lo; h <= hi; h++ {
			if slices.Contains(heights[h], k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// TestEVMExplorerSplice: an EVM tx with explorer keys is served as the receipt object with the
// keys appended inside its braces, by hash and in every list shape; one without them (a row
// written before migration 0014) is served as the receipt alone. Both backends, with a
// non-ASCII value so that the splice counts characters on both.
func TestEVMExplorerSplice(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		from := make([]byte, 20)
		from[19] = 7
		b := BlockBundle{Block: Block{ChainID: "c", Height: 1, Hash: []byte{1}, Time: time.Unix(1, 0).UTC(), TotalFee: []byte("[]")},
			Extensions: []ExtensionRows{EVMRows{
				{Hash: []byte("hash-old"), Index: 0, Signer: from, JSON: json.RawMessage(`{"a":"é","b":[1]}`)},
				{Hash: []byte("hash-new"), Index: 1, Signer: from, JSON: json.RawMessage(`{"a":"ü","b":[2]}`),
					Explorer: json.RawMessage(`{"timestamp":"1970-01-01T00:00:01Z","input":"0xß"}`)},
			}}}
		if err := db.WriteBlocks(ctx, []BlockBundle{b}); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"hash-old": `{"a":"é","b":[1]}`,
			"hash-new": `{"a":"ü","b":[2],"timestamp":"1970-01-01T00:00:01Z","input":"0xß"}`,
		}
		for h, w := range want {
			r, err := db.EVMTx(ctx, []byte(h))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.JSON) != w {
				t.Errorf("%s by hash: %s, want %s", h, r.JSON, w)
			}
		}
		for _, f := range []EVMTxFilter{{}, {Height: 1}, {Account: from}, {Account: from, SignerOnly: true}, {MinHeight: 1, MaxHeight: 1}} {
			pg, err := db.EVMTxs(ctx, f, Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(pg.Txs) != 2 || string(pg.Txs[0].JSON) != want["hash-old"] || string(pg.Txs[1].JSON) != want["hash-new"] {
				t.Errorf("%+v: %v", f, pg.Txs)
			}
		}
	})
}
