package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The NFT dataset: four blocks over a fixed clock. Collection "Ünïcode Ärt Spaces" (32-byte
// address, Move-style tokens with object addresses) and "Plain NFT" (20-byte, EVM-style with
// tx edges); token "b-2" is minted, moved and burned; "7" gets a new URI.
var (
	nftCollA = bytes.Repeat([]byte{0xaa}, 32)
	nftCollB = bytes.Repeat([]byte{0xbb}, 20)
	nftOwner = bytes.Repeat([]byte{0x11}, 20)
	nftOther = bytes.Repeat([]byte{0x22}, 20)
)

func nftBundles() []store.BlockBundle {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 123456789, time.UTC)
	tx := func(h int64, i int) store.Tx {
		return store.Tx{Hash: []byte(fmt.Sprintf("h%d-%d", h, i)), Height: h, Index: i, Signer: nftOwner,
			Accounts: []store.TxAccount{{Addr: nftOwner, Signer: true}}, JSON: json.RawMessage(fmt.Sprintf(`{"txhash":"%d-%d"}`, h, i))}
	}
	obj := func(i byte) []byte { return bytes.Repeat([]byte{i}, 32) }
	var bs []store.BlockBundle
	for h := int64(1); h <= 4; h++ {
		b := store.BlockBundle{Block: store.Block{ChainID: "nft-1", Height: h, Hash: bytes.Repeat([]byte{byte(h)}, 32),
			Time: t0.Add(time.Duration(h) * time.Second), TotalFee: json.RawMessage(`[]`)}}
		b.Txs = []store.Tx{tx(h, 0), tx(h, 1)}
		b.Block.TxCount = 2
		bs = append(bs, b)
	}
	mint := func(coll []byte, id string, owner, o []byte, ti int) store.NFTChange {
		return store.NFTChange{Kind: store.NFTMint, TxIndex: ti, Edge: o == nil, Collection: coll, TokenID: id, Owner: owner,
			ObjectAddr: o, URI: "ipfs://" + id}
	}
	bs[0].Extensions = []store.ExtensionRows{&store.NFTRows{NFTs: []store.NFTChange{
		{Kind: store.NFTCreateCollection, TxIndex: 0, Collection: nftCollA, Name: "Ünïcode Ärt Spaces", Creator: nftOwner},
		{Kind: store.NFTCreateCollection, TxIndex: 1, Collection: nftCollB, Name: "Plain NFT", Creator: nftOther},
		mint(nftCollA, "1", nftOwner, obj(1), 0), mint(nftCollA, "10", nftOwner, obj(2), 0), mint(nftCollA, "9", nftOther, obj(3), 0),
		mint(nftCollB, "7", nftOwner, nil, 1), mint(nftCollB, "b-2", nftOwner, nil, 1),
	}}}
	bs[1].Extensions = []store.ExtensionRows{&store.NFTRows{NFTs: []store.NFTChange{
		{Kind: store.NFTTransfer, TxIndex: 0, Edge: true, Collection: nftCollB, TokenID: "b-2", Owner: nftOther},
		mint(nftCollB, "8", nftOther, nil, 1),
	}}}
	bs[2].Extensions = []store.ExtensionRows{&store.NFTRows{NFTs: []store.NFTChange{
		{Kind: store.NFTSetURI, TxIndex: 0, Edge: true, Collection: nftCollB, TokenID: "7", URI: "ipfs://7-v2"},
		{Kind: store.NFTTransfer, TxIndex: 1, ObjectAddr: obj(1), Owner: nftOther},
	}}}
	bs[3].Extensions = []store.ExtensionRows{&store.NFTRows{NFTs: []store.NFTChange{
		{Kind: store.NFTBurn, TxIndex: 0, Edge: true, Collection: nftCollB, TokenID: "b-2"},
		{Kind: store.NFTTransfer, TxIndex: 1, Edge: true, Collection: nftCollB, TokenID: "7", Owner: nftOther},
	}}}
	return bs
}

func openNFT(t testing.TB, dsn string) store.Store {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.WriteBlocks(context.Background(), nftBundles()); err != nil {
		t.Fatal(err)
	}
	return db
}

// nftGoldenCases cover every NFT route: filters, both orders, offsets and keys forward to the
// end and back, count_total=false, bad input, unknown account and collection, a burned token,
// and a name with spaces and non-ASCII letters found by its percent-encoded form.
var nftGoldenCases = func() []struct{ name, path string } {
	const (
		owner = "init1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg30th3ed" // nftOwner
		a     = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		b     = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	)
	return []struct{ name, path string }{
		{"nft_collections", "/indexer/nft/v1/collections"},
		{"nft_collections_asc_limit1", "/indexer/nft/v1/collections?pagination.reverse=false&pagination.limit=1"},
		{"nft_collections_asc_limit1_page2", "/indexer/nft/v1/collections?pagination.reverse=false&pagination.limit=1&pagination.key=" + b64("1")},
		{"nft_collections_asc_limit1_page3_end", "/indexer/nft/v1/collections?pagination.reverse=false&pagination.limit=1&pagination.key=" + b64("2")},
		{"nft_collections_count_total_false", "/indexer/nft/v1/collections?pagination.count_total=false"},
		{"nft_collections_height_cursor", "/indexer/nft/v1/collections?pagination.key=" + b64(`{"height":2}`)},
		{"ERR_nft_collections_limit0", "/indexer/nft/v1/collections?pagination.limit=0"},
		{"nft_collections_by_account", "/indexer/nft/v1/collections/by_account/" + owner},
		{"nft_collections_by_account_unknown", "/indexer/nft/v1/collections/by_account/0x1234"},
		{"ERR_nft_collections_by_account_bad", "/indexer/nft/v1/collections/by_account/zzz"},
		{"nft_collections_by_name_spaces_unicode", "/indexer/nft/v1/collections/by_name/" + url.PathEscape("ünïcode ärt")},
		{"nft_collections_by_name_upper", "/indexer/nft/v1/collections/by_name/PLAIN"},
		{"nft_collections_by_name_symbols_match_all", "/indexer/nft/v1/collections/by_name/" + url.PathEscape("-!-")},
		{"nft_collections_by_name_none", "/indexer/nft/v1/collections/by_name/nothing"},
		{"nft_collection", "/indexer/nft/v1/collections/" + a},
		{"nft_collection_upper_hex", "/indexer/nft/v1/collections/" + strings.ToUpper(b[2:])},
		{"ERR_nft_collection_unknown", "/indexer/nft/v1/collections/0x1212121212121212121212121212121212121212"},
		{"ERR_nft_collection_bad", "/indexer/nft/v1/collections/xyz"},
		{"ERR_nft_collection_too_long", "/indexer/nft/v1/collections/0x" + strings.Repeat("ab", 33)},
		{"nft_tokens_by_account", "/indexer/nft/v1/tokens/by_account/" + owner},
		{"nft_tokens_by_account_asc", "/indexer/nft/v1/tokens/by_account/" + owner + "?pagination.reverse=false"},
		{"nft_tokens_by_account_height", "/indexer/nft/v1/tokens/by_account/0x2222222222222222222222222222222222222222?order_by=HEIGHT"},
		{"nft_tokens_by_account_height_asc", "/indexer/nft/v1/tokens/by_account/0x2222222222222222222222222222222222222222?order_by=height&pagination.reverse=false"},
		{"nft_tokens_by_account_collection", "/indexer/nft/v1/tokens/by_account/0x2222222222222222222222222222222222222222?collection_addr=" + b},
		{"nft_tokens_by_account_token_id", "/indexer/nft/v1/tokens/by_account/0x2222222222222222222222222222222222222222?token_id=9"},
		{"nft_tokens_by_account_unknown", "/indexer/nft/v1/tokens/by_account/0x1234"},
		{"ERR_nft_tokens_by_account_order_by", "/indexer/nft/v1/tokens/by_account/" + owner + "?order_by=owner"},
		{"ERR_nft_tokens_by_account_collection_bad", "/indexer/nft/v1/tokens/by_account/" + owner + "?collection_addr=xyz"},
		{"nft_tokens_by_collection", "/indexer/nft/v1/tokens/by_collection/" + a},
		{"nft_tokens_by_collection_limit1", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1"},
		{"nft_tokens_by_collection_limit1_page2", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1&pagination.key=" + b64("1")},
		{"nft_tokens_by_collection_limit1_page3", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1&pagination.key=" + b64("2")},
		{"nft_tokens_by_collection_limit1_page4_end", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1&pagination.key=" + b64("3")},
		{"nft_tokens_by_collection_limit1_back", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1&pagination.offset=1"},
		{"nft_tokens_by_collection_cursor", "/indexer/nft/v1/tokens/by_collection/" + a + "?pagination.limit=1&pagination.key=" + b64(`{"height":1,"token_id":"9"}`)},
		{"nft_tokens_by_collection_height_asc", "/indexer/nft/v1/tokens/by_collection/" + b + "?order_by=height&pagination.reverse=false"},
		{"nft_tokens_by_collection_count_total_false", "/indexer/nft/v1/tokens/by_collection/" + b + "?pagination.count_total=false"},
		{"nft_tokens_by_collection_burned", "/indexer/nft/v1/tokens/by_collection/" + b + "?token_id=b-2"},
		{"nft_tokens_by_collection_unknown", "/indexer/nft/v1/tokens/by_collection/0x1212121212121212121212121212121212121212"},
		{"ERR_nft_tokens_by_collection_bad", "/indexer/nft/v1/tokens/by_collection/xyz"},
		{"ERR_nft_tokens_by_collection_bad_key", "/indexer/nft/v1/tokens/by_collection/" + b + "?pagination.key=" + b64(`{"height":"x","token_id":"1"}`)},
		{"nft_txs", "/indexer/nft/v1/txs/" + b + "/7"},
		{"nft_txs_asc_limit1", "/indexer/nft/v1/txs/" + b + "/7?pagination.reverse=false&pagination.limit=1"},
		{"nft_txs_asc_limit1_page2", "/indexer/nft/v1/txs/" + b + "/7?pagination.reverse=false&pagination.limit=1&pagination.key=" + b64(`{"sequence":2}`)},
		{"nft_txs_offset1", "/indexer/nft/v1/txs/" + b + "/7?pagination.offset=1"},
		{"nft_txs_move_object", "/indexer/nft/v1/txs/" + a + "/1"},
		{"nft_txs_burned", "/indexer/nft/v1/txs/" + b + "/b-2"},
		{"nft_txs_unknown_collection", "/indexer/nft/v1/txs/0x1212121212121212121212121212121212121212/1"},
		{"ERR_nft_txs_bad_collection", "/indexer/nft/v1/txs/xyz/1"},
	}
}()

func TestNFTGolden(t *testing.T) {
	opens := map[string]func(t *testing.T) store.Store{
		"sqlite":   func(t *testing.T) store.Store { return openNFT(t, "sqlite:"+filepath.Join(t.TempDir(), "nft.db")) },
		"postgres": func(t *testing.T) store.Store { return openNFT(t, testutil.PostgresDSN(t)) },
	}
	for name, open := range opens {
		t.Run(name, func(t *testing.T) {
			h := New(Config{ChainID: "nft-1"}, open(t), nil, prometheus.NewRegistry())
			for _, c := range nftGoldenCases {
				t.Run(c.name, func(t *testing.T) {
					rec := do(h, c.path)
					if !json.Valid(rec.Body.Bytes()) {
						t.Fatalf("%s: body is not JSON: %q", c.path, rec.Body.String())
					}
					wantErr := strings.HasPrefix(c.name, "ERR_")
					if wantErr != (rec.Code >= 400) || rec.Code >= 500 {
						t.Errorf("%s: status %d", c.path, rec.Code)
					}
					testutil.Golden(t, filepath.Join("golden", c.name+".txt"), render(rec))
				})
			}
		})
	}
}
