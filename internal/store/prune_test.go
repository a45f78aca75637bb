package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// pruneModel is buildNFTModel's chain (txs, account and message-type edges, NFT history) with
// EVM receipts on most blocks and internal txs on every other height.
func pruneModel(n int) ([]BlockBundle, []InternalBlock) {
	m, _ := buildNFTModel(n)
	a := func(i int) []byte { b := make([]byte, 20); b[19] = byte(i); return b }
	var internal []InternalBlock
	k := 0
	for i := range m.bundles {
		b := &m.bundles[i]
		h := b.Block.Height
		var txs EVMRows
		for j := 0; j < int(h%3); j++ {
			k++
			t := EVMTx{Hash: fmt.Appendf(nil, "evm-%03d", k), Index: j, Signer: a(k % 3), JSON: json.RawMessage(fmt.Sprintf(`{"k":%d}`, k))}
			if k%2 == 0 {
				t.Accounts = []TxAccount{{Addr: a(9)}, {Addr: a(k % 3)}}
			}
			txs = append(txs, t)
		}
		if txs != nil {
			b.Extensions = append(b.Extensions, txs)
		}
		if h%2 == 0 {
			internal = append(internal, InternalBlock{Height: h, Txs: []InternalTx{
				{Hash: fmt.Appendf(nil, "int-%03d", h), From: a(int(h % 4)), To: a(5), JSON: json.RawMessage(fmt.Sprintf(`{"h":%d}`, h))},
			}})
		}
	}
	return m.bundles, internal
}

func fillPrune(t *testing.T, db *DB, bundles []BlockBundle, internal []InternalBlock) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < len(bundles); i += 7 {
		if err := db.WriteBlocks(ctx, bundles[i:min(i+7, len(bundles))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.WriteInternalTxs(ctx, internal); err != nil {
		t.Fatal(err)
	}
}

// answers reads everything a height or an account shows, as JSON text, so two stores can be
// compared answer by answer.
func answers(t *testing.T, db *DB, bundles []BlockBundle, from, to int64) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	put := func(key string, v any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		b, _ := json.Marshal(v)
		// Final differs by design: no page of a pruning store is final.
		out[key] = strings.ReplaceAll(string(b), `"Final":true`, `"Final":false`)
	}
	for h := from; h <= to; h++ {
		b, err := db.Block(ctx, h)
		put(fmt.Sprintf("block %d", h), b, err)
		p, err := db.Txs(ctx, TxFilter{Height: h}, Page{Limit: 100, CountTotal: true})
		put(fmt.Sprintf("txs at %d", h), p, err)
		for _, tx := range bundles[h-1].Txs {
			r, err := db.Tx(ctx, tx.Hash)
			put(fmt.Sprintf("tx %x", tx.Hash), r, err)
		}
		e, err := db.EVMTxs(ctx, EVMTxFilter{Height: h}, Page{Limit: 100, CountTotal: true})
		put(fmt.Sprintf("evm txs at %d", h), e, err)
		in, err := db.InternalTxs(ctx, InternalTxFilter{Height: h}, Page{Limit: 100, CountTotal: true})
		put(fmt.Sprintf("internal txs at %d", h), in, err)
	}
	// Newest-first pages of every account, as deep as the retained rows go (the last page
	// touched is cut where the oldest retained rows end, so only its retained part counts).
	for i := 0; i < 20; i++ {
		for _, signer := range []bool{false, true} {
			p, err := db.Txs(ctx, TxFilter{Account: acct(i), SignerOnly: signer}, Page{Limit: 3, Desc: true, Offset: 2})
			put(fmt.Sprintf("txs of %d/%v", i, signer), keepFrom(p, from), err)
		}
	}
	for _, c := range []int{0, 1, 2} {
		p, err := db.Tokens(ctx, TokenFilter{Collection: coll(c)}, Page{Limit: 100, CountTotal: true}, nil)
		put(fmt.Sprintf("tokens of %d", c), p, err)
	}
	return out
}

func keepFrom(p TxPage, from int64) []TxRecord {
	var out []TxRecord
	for _, r := range p.Txs {
		if r.Height >= from {
			out = append(out, r)
		}
	}
	return out
}

// restrictDump drops from a dump the rows a prune below floor removes (lastSeq, evmSeq and
// intSeq are the last tx, EVM tx and internal tx sequences below it) and sets first_height.
func restrictDump(t *testing.T, d string, floor, lastSeq, evmSeq, intSeq int64) string {
	t.Helper()
	drop := map[string]func(col map[string]int64) bool{
		"block":                    func(c map[string]int64) bool { return c["height"] < floor },
		"tx":                       func(c map[string]int64) bool { return c["sequence"] <= lastSeq },
		"tx_accounts":              func(c map[string]int64) bool { return c["sequence"] <= lastSeq },
		"tx_msg_types":             func(c map[string]int64) bool { return c["sequence"] <= lastSeq },
		"nft_txs":                  func(c map[string]int64) bool { return c["sequence"] <= lastSeq },
		"evm_tx":                   func(c map[string]int64) bool { return c["sequence"] <= evmSeq },
		"evm_tx_accounts":          func(c map[string]int64) bool { return c["sequence"] <= evmSeq },
		"evm_internal_tx":          func(c map[string]int64) bool { return c["sequence"] <= intSeq },
		"evm_internal_tx_accounts": func(c map[string]int64) bool { return c["sequence"] <= intSeq },
	}
	var out strings.Builder
	var table string
	var cols []string
	for _, line := range strings.SplitAfter(d, "\n") {
		if name, rest, ok := strings.Cut(strings.TrimPrefix(line, "## "), " ("); ok && strings.HasPrefix(line, "## ") {
			table, cols = name, strings.Split(strings.TrimSuffix(strings.TrimSpace(rest), ")"), ", ")
			out.WriteString(line)
			continue
		}
		vals := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		num := map[string]int64{}
		for i, c := range cols {
			if i < len(vals) {
				num[c], _ = strconv.ParseInt(vals[i], 10, 64)
			}
		}
		if f := drop[table]; f != nil && line != "" && f(num) {
			continue
		}
		if table == "indexed_height" && line != "" {
			vals[2] = strconv.FormatInt(floor, 10)
			line = strings.Join(vals, "\t") + "\n"
		}
		out.WriteString(line)
	}
	return out.String()
}

// TestPruneKeepsRetainedAnswers prunes one of two stores holding the same chain and checks,
// on both backends, that every retained height answers exactly as the unpruned store does,
// that pruned heights report the floor, that the dump is the unpruned one restricted to the
// retained range, and that writing on after the prune continues as on the unpruned store.
func TestPruneKeepsRetainedAnswers(t *testing.T) {
	const n, keep = 60, 25
	bundles, internal := pruneModel(n)
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			full, pruned := open(t), open(t)
			fillPrune(t, full, bundles[:n-10], internal[:(n-10)/2])
			fillPrune(t, pruned, bundles[:n-10], internal[:(n-10)/2])
			pruned.SetRetention(keep)
			res, err := pruned.Prune(ctx, keep, 7)
			if err != nil {
				t.Fatal(err)
			}
			// Heights 1..50 stored, 25 kept: 26..50; 25 heights removed in batches of 7.
			if res.From != 1 || res.To != 26 || res.Batches != 4 {
				t.Fatalf("prune result %+v", res)
			}
			if res, err := pruned.Prune(ctx, keep, 7); err != nil || res.Batches != 0 {
				t.Fatalf("second prune: %+v %v", res, err)
			}
			// Writing on: the ords of the rows to come continue the counters.
			fillPrune(t, full, bundles[n-10:], internal[(n-10)/2:])
			fillPrune(t, pruned, bundles[n-10:], internal[(n-10)/2:])

			got, want := answers(t, pruned, bundles, 26, n), answers(t, full, bundles, 26, n)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s:\n pruned %s\n   full %s", k, got[k], w)
				}
			}
			if lo, err := pruned.LowestHeight(ctx); err != nil || lo != 26 {
				t.Fatalf("lowest height %d %v", lo, err)
			}
			for _, h := range []int64{1, 25} {
				err := pruned.CheckHeight(ctx, h)
				if !IsPruned(err) || err.Error() != fmt.Sprintf("height %d is pruned: lowest retained height is 26", h) {
					t.Errorf("height %d: %v", h, err)
				}
			}
			for _, h := range []int64{26, n, n + 5} {
				if err := pruned.CheckHeight(ctx, h); err != nil {
					t.Errorf("height %d: %v", h, err)
				}
			}
			if err := full.CheckHeight(ctx, 1); err != nil {
				t.Errorf("unpruned store, height 1: %v", err)
			}
			// No page of a pruning store is final: its oldest rows go.
			if p, err := pruned.Blocks(ctx, Page{Limit: 3}); err != nil || p.Final || p.Blocks[0].Height != 26 {
				t.Fatalf("oldest blocks: %+v %v", p, err)
			}

			var lastSeq, evmSeq, intSeq int64
			for _, b := range bundles[:25] {
				lastSeq += int64(len(b.Txs))
				evmSeq += int64(len(EVMTxsOf(&b)))
			}
			for _, ib := range internal {
				if ib.Height < 26 {
					intSeq += int64(len(ib.Txs))
				}
			}
			if got, want := dump(t, pruned), restrictDump(t, dump(t, full), 26, lastSeq, evmSeq, intSeq); got != want {
				t.Errorf("pruned dump is not the full dump restricted to 26..%d:\n%s", n, firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// TestPruneOffByDefault: a store without retention keeps every height and answers none as
// pruned, and Prune with keep 0 removes nothing.
func TestPruneOffByDefault(t *testing.T) {
	bundles, internal := pruneModel(12)
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		fillPrune(t, db, bundles, internal)
		before := dump(t, db)
		if res, err := db.Prune(ctx, 0, 10); err != nil || !reflect.DeepEqual(res, PruneResult{}) {
			t.Fatalf("%+v %v", res, err)
		}
		if dump(t, db) != before {
			t.Fatal("Prune(0) changed the store")
		}
		if db.Retention() != 0 || db.CheckHeight(ctx, 1) != nil {
			t.Fatal("a store without retention reports a pruned height")
		}
	})
}

// TestPruneWhileWriting prunes in a loop while the chain is written batch by batch and read,
// as `rollgate up` does, on both backends: the store ends as the unpruned one restricted to the
// retained range, and no read fails.
func TestPruneWhileWriting(t *testing.T) {
	const n, keep = 60, 20
	bundles, internal := pruneModel(n)
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			full, pruned := open(t), open(t)
			// Written the same way, so dictionary ids are assigned in the same order.
			writeIn4(t, full, bundles, internal)
			pruned.SetRetention(keep)
			done := make(chan struct{})
			errs := make(chan error, 3)
			var batches atomic.Int64 // pruned while the writes went on
			go func() {              // the pruner
				for {
					select {
					case <-done:
						errs <- nil
						return
					default:
					}
					res, err := pruned.Prune(ctx, keep, 3)
					if err != nil {
						errs <- err
						return
					}
					batches.Add(int64(res.Batches))
				}
			}()
			go func() { // a reader
				for {
					select {
					case <-done:
						errs <- nil
						return
					default:
					}
					if _, err := pruned.Blocks(ctx, Page{Limit: 5, CountTotal: true}); err != nil {
						errs <- err
						return
					}
					if _, err := pruned.Txs(ctx, TxFilter{Account: acct(1)}, Page{Limit: 5, Desc: true}); err != nil {
						errs <- err
						return
					}
				}
			}()
			writeIn4(t, pruned, bundles, internal)
			close(done)
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if batches.Load() < 2 {
				t.Fatalf("%d prune batches ran during the writes", batches.Load())
			}
			if _, err := pruned.Prune(ctx, keep, 3); err != nil {
				t.Fatal(err)
			}
			floor := int64(n - keep + 1)
			var lastSeq, evmSeq, intSeq int64
			for _, b := range bundles[:floor-1] {
				lastSeq += int64(len(b.Txs))
				evmSeq += int64(len(EVMTxsOf(&b)))
			}
			for _, ib := range internal {
				if ib.Height < floor {
					intSeq += int64(len(ib.Txs))
				}
			}
			if got, want := dump(t, pruned), restrictDump(t, dump(t, full), floor, lastSeq, evmSeq, intSeq); got != want {
				t.Errorf("dump after pruning while writing is not the full dump restricted to %d..%d:\n%s", floor, n, firstDiff(got, want))
			}
		})
	}
}

// writeIn4 writes the chain four blocks at a time, each batch's internal txs after it.
func writeIn4(t *testing.T, db *DB, bundles []BlockBundle, internal []InternalBlock) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < len(bundles); i += 4 {
		if err := db.WriteBlocks(ctx, bundles[i:min(i+4, len(bundles))]); err != nil {
			t.Fatal(err)
		}
		var ib []InternalBlock
		for _, b := range internal {
			if b.Height > int64(i) && b.Height <= int64(i+4) {
				ib = append(ib, b)
			}
		}
		if err := db.WriteInternalTxs(ctx, ib); err != nil {
			t.Fatal(err)
		}
	}
}
