package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// evmFiller appends EVM blocks after the store's height, numbering the EVM txs on.
type evmFiller struct {
	w   store.Store
	seq int64
}

func (f *evmFiller) fill(t *testing.T, blocks int) {
	t.Helper()
	const per = 3
	ew, ok := f.w.(storetest.EVMWriter)
	if !ok {
		t.Fatalf("%T writes no EVM data", f.w)
	}
	if err := storetest.FillEVM(context.Background(), ew, f.seq, blocks*per, storetest.EVMOptions{TxsPerBlock: per, Accounts: 5}); err != nil {
		t.Fatal(err)
	}
	f.seq += int64(blocks * per)
}

// TestEVMTxStreamResumesAsListRoutes: over real HTTP on both backends, an API served from a
// separate reader streams the EVM txs live; a client away for 5 blocks resumes with
// Last-Event-ID and, with what it got before, has exactly the list route's items in order.
func TestEVMTxStreamResumesAsListRoutes(t *testing.T) {
	acc, err := address.Bech32("init", storetest.Account(2))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, stream, list string }{
		{"all", "/indexer/tx/v1/evm-txs/stream", "/indexer/tx/v1/evm-txs"},
		{"by account", "/indexer/tx/v1/evm-txs/stream?account=" + acc, "/indexer/tx/v1/evm-txs/by_account/" + acc},
		{"by signer", "/indexer/tx/v1/evm-txs/stream?account=" + acc + "&is_signer=true", "/indexer/tx/v1/evm-txs/by_account/" + acc + "?is_signer=true"},
	}
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			f := &evmFiller{w: w}
			f.fill(t, 3)
			srv := httptest.NewServer(newEVM(Config{StreamPoll: 20 * time.Millisecond}, r.(evmStore), nil, nil))
			t.Cleanup(srv.Close)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					caughtUp(t, srv.URL, w)
					before := len(listItems(t, srv.URL, tc.list, "txs"))
					live := openStream(t, srv.URL+tc.stream, "")
					f.fill(t, 2)
					caughtUp(t, srv.URL, w)
					now := listItems(t, srv.URL, tc.list, "txs")
					got := live.next(t, len(now)-before)
					live.Resp.Body.Close()
					f.fill(t, 5)
					caughtUp(t, srv.URL, w)
					back := openStream(t, srv.URL+tc.stream, got[len(got)-1].ID)
					want := listItems(t, srv.URL, tc.list, "txs")
					got = append(got, back.next(t, len(want)-len(now))...)
					f.fill(t, 1)
					caughtUp(t, srv.URL, w)
					want = listItems(t, srv.URL, tc.list, "txs")
					got = append(got, back.next(t, len(want)-before-len(got))...)
					sameItems(t, tc.name, data(got), want[before:])
					for _, ev := range got {
						if ev.Name != "evm_tx" {
							t.Fatalf("event named %q", ev.Name)
						}
					}
					sep := map[bool]string{true: "&", false: "?"}[strings.Contains(tc.stream, "?")]
					all := openStream(t, srv.URL+tc.stream+sep+"from=0", "")
					sameItems(t, tc.name+" from 0", data(all.next(t, len(want))), want)
				})
			}
		})
	}
}

// nftFiller appends blocks of NFT changes: each block mints two tokens of collection 1 (one
// to each of two accounts) and moves the oldest token of the block before last to the other
// account, so the lists see mints and moves.
type nftFiller struct {
	w    store.Store
	h    int64
	coll []byte
	accs [2][]byte
}

func (f *nftFiller) fill(t *testing.T, blocks int) {
	t.Helper()
	ctx := context.Background()
	var bs []store.BlockBundle
	for range blocks {
		f.h++
		h := f.h
		b := store.BlockBundle{Block: store.Block{ChainID: "nft-1", Height: h, Hash: bytes.Repeat([]byte{byte(h), byte(h >> 8)}, 16),
			Time: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Second), TxCount: 1, TotalFee: json.RawMessage(`[]`)}}
		b.Txs = []store.Tx{{Hash: []byte(fmt.Sprintf("nft-%d", h)), Height: h, Signer: f.accs[0],
			Accounts: []store.TxAccount{{Addr: f.accs[0], Signer: true}}, JSON: json.RawMessage(fmt.Sprintf(`{"txhash":"nft-%d"}`, h))}}
		nr := &store.NFTRows{}
		b.Extensions = []store.ExtensionRows{nr}
		if h == 1 {
			nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTCreateCollection, Collection: f.coll, Name: "Stream <&> Art", Creator: f.accs[0]})
		}
		for i := range 2 {
			id := fmt.Sprintf("t%d-%d", h, i)
			nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTMint, Edge: true, Collection: f.coll, TokenID: id, Owner: f.accs[i], URI: "ipfs://" + id})
		}
		if h > 2 {
			nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTTransfer, Edge: true, Collection: f.coll, TokenID: fmt.Sprintf("t%d-0", h-2), Owner: f.accs[1]})
		}
		bs = append(bs, b)
	}
	if err := f.w.WriteBlocks(ctx, bs); err != nil {
		t.Fatal(err)
	}
}

// heightsAfter is the suffix of a height-ordered token list above height h.
func heightsAfter(t *testing.T, items []string, h int64) []string {
	t.Helper()
	for i, it := range items {
		var tok struct{ Height int64 }
		if err := json.Unmarshal([]byte(it), &tok); err != nil {
			t.Fatal(err)
		}
		if tok.Height > h {
			return items[i:]
		}
	}
	return nil
}

// TestNFTTokenStreamResumesAsListRoutes: the token stream of an account or a collection sends
// each block's changed tokens exactly as the height-ordered list route lists them; a client
// away for 5 blocks resumes with Last-Event-ID and gets exactly the list's tokens changed
// since, in order; from=0 is the whole list.
func TestNFTTokenStreamResumesAsListRoutes(t *testing.T) {
	coll := storetest.NFTCollection(1)
	accs := [2][]byte{storetest.Account(1), storetest.Account(2)}
	acc, err := address.Bech32("init", accs[1])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, stream, list string }{
		{"by collection", "/indexer/nft/v1/tokens/stream?collection_addr=" + address.Hex(coll), "/indexer/nft/v1/tokens/by_collection/" + address.Hex(coll) + "?order_by=height"},
		{"by account", "/indexer/nft/v1/tokens/stream?account=" + acc, "/indexer/nft/v1/tokens/by_account/" + acc + "?order_by=height"},
	}
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			f := &nftFiller{w: w, coll: coll, accs: accs}
			f.fill(t, 3)
			srv := httptest.NewServer(New(Config{StreamPoll: 20 * time.Millisecond}, r, nil, nil))
			t.Cleanup(srv.Close)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					caughtUp(t, srv.URL, w)
					live := openStream(t, srv.URL+tc.stream, "")
					var lastID string
					// Live, block by block: the block's changed tokens.
					for range 3 {
						h := f.h
						f.fill(t, 1)
						caughtUp(t, srv.URL, w)
						want := heightsAfter(t, listItems(t, srv.URL, tc.list, "tokens"), h)
						evs := live.next(t, len(want))
						sameItems(t, tc.name+" live", data(evs), want)
						lastID = evs[len(evs)-1].ID
					}
					live.Resp.Body.Close()
					// Away for 5 blocks.
					h := f.h
					f.fill(t, 5)
					caughtUp(t, srv.URL, w)
					back := openStream(t, srv.URL+tc.stream, lastID)
					want := heightsAfter(t, listItems(t, srv.URL, tc.list, "tokens"), h)
					sameItems(t, tc.name+" resumed", data(back.next(t, len(want))), want)
					// ?from= takes a height and an event id (escaped, as base64 needs).
					all := listItems(t, srv.URL, tc.list, "tokens")
					sameItems(t, tc.name+" from 0", data(openStream(t, srv.URL+tc.stream+"&from=0", "").next(t, len(all))), all)
					evs := openStream(t, srv.URL+tc.stream+"&from="+url.QueryEscape(lastID), "").next(t, len(want))
					sameItems(t, tc.name+" from id", data(evs), want)
					for _, ev := range evs {
						if ev.Name != "token" {
							t.Fatalf("event named %q", ev.Name)
						}
					}
				})
			}
		})
	}
}

func TestEVMNFTStreamBadInputAndExpired(t *testing.T) {
	db := lateStore(t)
	coll := address.Hex(storetest.NFTCollection(1))
	for _, vm := range []vmkind.Kind{vmkind.EVM, vmkind.Move} {
		cfg := Config{StreamPoll: 20 * time.Millisecond}
		if vm == vmkind.EVM {
			cfg.Features = evmFeatures(db)
		}
		srv := httptest.NewServer(New(cfg, db, nil, nil))
		c := openStream(t, srv.URL+"/indexer/nft/v1/tokens/stream?collection_addr="+coll+"&from=3", "")
		if ev := c.next(t, 1)[0]; ev.Name != "error" || !strings.Contains(string(ev.Data), "RESUME_POINT_EXPIRED") {
			t.Errorf("%s: expired token resume point: %s %s", vm, ev.Name, ev.Data)
		}
		bad := []string{
			"/indexer/nft/v1/tokens/stream",
			"/indexer/nft/v1/tokens/stream?account=nope",
			"/indexer/nft/v1/tokens/stream?collection_addr=" + coll + "&from=eyJ4IjoxfQ==",
			"/indexer/nft/v1/tokens/stream?collection_addr=" + coll + "&from=-4",
		}
		if vm == vmkind.EVM {
			bad = append(bad, "/indexer/tx/v1/evm-txs/stream?account=nope", "/indexer/tx/v1/evm-txs/stream?from=x")
		}
		for _, path := range bad {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Code int }
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != 400 || err != nil || body.Code != 3 {
				t.Errorf("%s %s: %d %v", vm, path, resp.StatusCode, err)
			}
		}
		// The EVM stream exists on EVM chains only: elsewhere rollytics' EVM 404.
		resp, err := http.Get(srv.URL + "/indexer/tx/v1/evm-txs/stream")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[vmkind.Kind]int{vmkind.EVM: 200, vmkind.Move: 404}[vm]; resp.StatusCode != want {
			t.Errorf("%s: evm-txs/stream %d, want %d", vm, resp.StatusCode, want)
		}
		srv.CloseClientConnections()
		srv.Close()
	}
}
