package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// prunedStreamStore is a store on dsn holding every kind a stream sends, pruned: heights 1..10
// carry a Cosmos tx and NFT changes each, 11..20 three EVM txs each, 21..30 a Cosmos tx and NFT
// changes again; keeping 15 heights leaves 16..30, so the first retained Cosmos tx is that of
// height 21 (sequence 11) and the first retained EVM tx the first of height 16 (sequence 16).
func prunedStreamStore(t *testing.T, dsn string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	nft := &nftFiller{w: db, coll: storetest.NFTCollection(1), accs: [2][]byte{storetest.Account(1), storetest.Account(2)}}
	nft.fill(t, 10)
	(&evmFiller{w: db}).fill(t, 10)
	nft.h = 20
	nft.fill(t, 10)
	db.SetRetention(15)
	if _, err := db.Prune(ctx, 15, 100); err != nil {
		t.Fatal(err)
	}
	if lo, err := db.LowestHeight(ctx); err != nil || lo != 16 {
		t.Fatalf("lowest height after the prune: %d %v", lo, err)
	}
	return db
}

// TestStreamsResumeRule: the one resume rule over the four streams, on a pruned store of both
// backends. A resume point older than the retained data is RESUME_POINT_EXPIRED naming the
// first retained id, and the stream ends; from=0 replays from the first retained item; the
// point just before the first retained item resumes there without an error. Then the store is
// re-indexed (Reset) and refilled, its ids starting over: every id given out before, even one
// the new chain has an item at, is CHAIN_RESET naming the new chain's first id and ends the
// stream before any item; the new ids carry the epoch ("1:…") and resume as before.
func TestStreamsResumeRule(t *testing.T) {
	coll := address.Hex(storetest.NFTCollection(1))
	cases := []struct {
		name, stream, list, key string
		old                     string // a resume point before the retained data
		justBefore              string // the id before the first retained item
		first                   string // how the error names the first retained id
		firstNew                string // how CHAIN_RESET names the first id after the re-index
	}{
		{"blocks", "/indexer/block/v1/blocks/stream", "/indexer/block/v1/blocks", "blocks", "5", "15", "first retained height 16", "the first height it holds is 1:1;"},
		{"txs", "/indexer/tx/v1/txs/stream", "/indexer/tx/v1/txs", "txs", "5", "10", "first retained id 11", "the first id it holds is 1:1;"},
		{"evm txs", "/indexer/tx/v1/evm-txs/stream", "/indexer/tx/v1/evm-txs", "txs", "5", "15", "first retained id 16", "the first id it holds is 1:1;"},
		{"nft tokens", "/indexer/nft/v1/tokens/stream?collection_addr=" + coll, "/indexer/nft/v1/tokens/by_collection/" + coll + "?order_by=height", "tokens", "5", "15", "first retained height 16", "the first height it holds is 1:1;"},
	}
	errorEvent := func(t *testing.T, c *streamClient, detail, says string) {
		t.Helper()
		ev := c.next(t, 1)[0]
		var body struct {
			Code    apierr.Code
			Message string
			Details []string
		}
		if err := json.Unmarshal(ev.Data, &body); err != nil || ev.Name != "error" || body.Code != apierr.NotFound ||
			len(body.Details) != 1 || body.Details[0] != detail || !strings.Contains(body.Message, says) {
			t.Errorf("event %q %s (%v), want the error %s saying %q", ev.Name, ev.Data, err, detail, says)
		}
		if _, err := c.R.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("stream not ended after the error: %v", err)
		}
	}
	dsns := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/idx.db" },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			db := prunedStreamStore(t, dsn(t))
			srv := httptest.NewServer(newEVM(Config{StreamPoll: 20 * time.Millisecond}, db, nil, nil))
			t.Cleanup(srv.Close)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					sep := map[bool]string{true: "&", false: "?"}[strings.Contains(tc.stream, "?")]
					// Too old, as Last-Event-ID and as ?from=: the error, then the end.
					for _, c := range []*streamClient{openStream(t, srv.URL+tc.stream, tc.old), openStream(t, srv.URL+tc.stream+sep+"from="+tc.old, "")} {
						errorEvent(t, c, "RESUME_POINT_EXPIRED", tc.first)
					}
					all := listItems(t, srv.URL, tc.list, tc.key)
					if len(all) == 0 {
						t.Fatal("the list route is empty")
					}
					// from=0: everything retained, from the first item.
					sameItems(t, "from=0", data(openStream(t, srv.URL+tc.stream+sep+"from=0", "").next(t, len(all))), all)
					// Just before the first retained item: no gap, so no error.
					want := all
					if tc.key == "tokens" {
						// The tokens are current state, kept below the floor: those changed after it.
						want = heightsAfter(t, all, 15)
					}
					sameItems(t, "from "+tc.justBefore, data(openStream(t, srv.URL+tc.stream, tc.justBefore).next(t, len(want))), want)
				})
			}
			// The re-index: the old chain goes, a new one is indexed from height 1.
			if err := db.Reset(context.Background()); err != nil {
				t.Fatal(err)
			}
			nft := &nftFiller{w: db, coll: storetest.NFTCollection(1), accs: [2][]byte{storetest.Account(1), storetest.Account(2)}}
			nft.fill(t, 10)
			(&evmFiller{w: db}).fill(t, 10)
			for _, tc := range cases {
				t.Run(tc.name+" after a re-index", func(t *testing.T) {
					sep := map[bool]string{true: "&", false: "?"}[strings.Contains(tc.stream, "?")]
					// Ids of the old chain, all of which the new one also has an item at, and an
					// epoch the store never had.
					for _, id := range []string{tc.old, tc.justBefore, "3", "7:3"} {
						errorEvent(t, openStream(t, srv.URL+tc.stream, id), "CHAIN_RESET", tc.firstNew)
						errorEvent(t, openStream(t, srv.URL+tc.stream+sep+"from="+id, ""), "CHAIN_RESET", tc.firstNew)
					}
					all := listItems(t, srv.URL, tc.list, tc.key)
					if len(all) < 4 {
						t.Fatalf("the list route has %d items", len(all))
					}
					evs := openStream(t, srv.URL+tc.stream+sep+"from=0", "").next(t, len(all))
					sameItems(t, "from=0 after the re-index", data(evs), all)
					for _, ev := range evs {
						if !strings.HasPrefix(ev.ID, "1:") {
							t.Fatalf("id %q of the re-indexed chain does not carry its epoch", ev.ID)
						}
					}
					// An id of the new chain resumes after it.
					sameItems(t, "from "+evs[2].ID, data(openStream(t, srv.URL+tc.stream, evs[2].ID).next(t, len(all)-3)), all[3:])
				})
			}
		})
	}
}

// TestTxStreamsResumeRuleNoTxRetained: on a pruned store whose retained heights hold no tx, the
// tx streams still know where the retained data begins (the next sequence): an older resume
// point is RESUME_POINT_EXPIRED, the current one waits for new txs without an error.
func TestTxStreamsResumeRuleNoTxRetained(t *testing.T) {
	dsns := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/idx.db" },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, dsn(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			nft := &nftFiller{w: db, coll: storetest.NFTCollection(1), accs: [2][]byte{storetest.Account(1), storetest.Account(2)}}
			nft.fill(t, 10)                 // Cosmos txs 1..10 at heights 1..10
			(&evmFiller{w: db}).fill(t, 10) // EVM txs 1..30 at heights 11..20
			var empty []store.BlockBundle   // heights 21..30 without a tx
			for h := int64(21); h <= 30; h++ {
				empty = append(empty, store.BlockBundle{Block: store.Block{ChainID: "nft-1", Height: h, Hash: bytes.Repeat([]byte{byte(h)}, 32),
					Time: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Second), TotalFee: json.RawMessage(`[]`)}})
			}
			if err := db.WriteBlocks(ctx, empty); err != nil {
				t.Fatal(err)
			}
			db.SetRetention(5)
			if _, err := db.Prune(ctx, 5, 100); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(newEVM(Config{StreamPoll: 20 * time.Millisecond}, db, nil, nil))
			t.Cleanup(srv.Close)
			for _, tc := range []struct{ stream, old, current, first string }{
				{"/indexer/tx/v1/txs/stream", "5", "10", "first retained id 11"},
				{"/indexer/tx/v1/evm-txs/stream", "5", "30", "first retained id 31"},
			} {
				ev := openStream(t, srv.URL+tc.stream, tc.old).next(t, 1)[0]
				if ev.Name != "error" || !strings.Contains(string(ev.Data), "RESUME_POINT_EXPIRED") || !strings.Contains(string(ev.Data), tc.first) {
					t.Errorf("%s from %s: %q %s", tc.stream, tc.old, ev.Name, ev.Data)
				}
				// The current position: no error, the stream waits (a heartbeat-free second passes).
				c := openStream(t, srv.URL+tc.stream, tc.current)
				got := make(chan string, 1)
				go func() {
					ev, err := c.R.Next()
					got <- ev.Name + " " + string(ev.Data) + " " + fmt.Sprint(err)
				}()
				select {
				case s := <-got:
					t.Errorf("%s from %s: %s", tc.stream, tc.current, s)
				case <-time.After(300 * time.Millisecond):
				}
				c.Resp.Body.Close()
			}
		})
	}
}
