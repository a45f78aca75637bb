package store

import (
	"context"
	"slices"
	"testing"
)

// TestTxPlans: each named plan serves the request shapes it is documented for, and answers
// them as the brute-force model does, on both backends. TestTxsConformance covers the full
// filter × page grid; this pins which plan each shape takes so a change of plan is a visible
// test change, and checks no plan is left untested.
func TestTxPlans(t *testing.T) {
	m := buildModel(24)
	msgCall, msgSend := "minievm.evm.v1.MsgCall", "cosmos.bank.v1beta1.MsgSend"
	cases := []struct {
		plan string
		f    TxFilter
		p    Page
	}{
		{"denseRange", TxFilter{}, Page{Limit: 5, Desc: true, CountTotal: true}},
		{"denseRange", TxFilter{}, Page{Limit: 5, Offset: 7, CountTotal: true}},
		{"denseRange", TxFilter{Height: 11}, Page{Limit: 2, Desc: true, After: Cursor{CursorSequence, 1 << 40}, CountTotal: true}},
		{"denseRange", TxFilter{}, Page{Limit: 3, After: Cursor{CursorHeight, 10}, CountTotal: true}},

		{"rankRange", TxFilter{Account: acct(1)}, Page{Limit: 3, Desc: true, Offset: 2, CountTotal: true}},
		{"rankRange", TxFilter{Account: acct(1), SignerOnly: true}, Page{Limit: 3, Offset: 1, CountTotal: true}},
		{"rankRange", TxFilter{MsgTypes: []string{msgCall}}, Page{Limit: 4, Desc: true, CountTotal: true}},
		{"rankRange", TxFilter{MsgTypes: []string{msgCall, "unknown.Msg"}}, Page{Limit: 4, Offset: 1 << 62, CountTotal: true}},

		{"rankSeek", TxFilter{Account: acct(13)}, Page{Limit: 3, Desc: true, After: Cursor{CursorSequence, 20}, CountTotal: true}},
		{"rankSeek", TxFilter{Account: acct(2), SignerOnly: true}, Page{Limit: 3, After: Cursor{CursorHeight, 6}, CountTotal: true}},
		{"rankSeek", TxFilter{MsgTypes: []string{msgCall}}, Page{Limit: 3, After: Cursor{CursorSequence, 9}, CountTotal: true}},

		{"typeMerge", TxFilter{MsgTypes: []string{msgCall, msgSend}}, Page{Limit: 4, Desc: true, Offset: 3, CountTotal: true}},
		{"typeMerge", TxFilter{MsgTypes: []string{msgSend, msgCall}}, Page{Limit: 4, After: Cursor{CursorSequence, 12}, CountTotal: true}},
		{"typeMerge", TxFilter{Height: 11, MsgTypes: []string{msgCall, msgSend}}, Page{Limit: 10, CountTotal: true}},

		{"edgeSeek", TxFilter{Account: acct(2), MsgTypes: []string{msgCall}}, Page{Limit: 2, Desc: true, Offset: 1, CountTotal: true}},
		{"edgeSeek", TxFilter{Account: acct(2), SignerOnly: true, MsgTypes: []string{msgCall}}, Page{Limit: 2, After: Cursor{CursorSequence, 3}, CountTotal: true}},
		{"edgeSeek", TxFilter{Height: 11, Account: acct(3)}, Page{Limit: 5, CountTotal: true}},
		{"edgeSeek", TxFilter{Height: 11, MsgTypes: []string{msgCall}}, Page{Limit: 5, Desc: true, CountTotal: true}},
	}
	covered := map[string]bool{}
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		if err := db.WriteBlocks(ctx, m.bundles); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			q, ok, err := db.resolveTxQuery(ctx, db.be.Reader(), c.f, c.p)
			if err != nil || !ok {
				t.Fatalf("%s %+v: resolve: ok %v, %v", c.plan, c.f, ok, err)
			}
			pl := txPlanFor(q)
			if pl.name != c.plan {
				t.Errorf("%+v %+v: plan %s, want %s", c.f, c.p, pl.name, c.plan)
			}
			covered[pl.name] = true
			got, err := pl.run(ctx, db.be.Reader(), q)
			if err != nil {
				t.Fatalf("%s %+v: %v", c.plan, c.f, err)
			}
			var seqs []int64
			for _, tx := range got.Txs {
				seqs = append(seqs, tx.Sequence)
			}
			want, total := m.want(c.f, c.p)
			if !slices.Equal(seqs, want) || got.Total != total {
				t.Errorf("%s %+v %+v:\n got %v total %d\nwant %v total %d", c.plan, c.f, c.p, seqs, got.Total, want, total)
			}
		}
	})
	for _, pl := range []txPlan{denseRange, rankRange, rankSeek, typeMerge, edgeSeek} {
		if !covered[pl.name] {
			t.Errorf("plan %s has no case", pl.name)
		}
	}
}
