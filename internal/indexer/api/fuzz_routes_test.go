package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// The routes added after FuzzParams was written: NFTs, the rich list, EVM txs and internal
// txs. Their path prefixes (the fuzzed segment goes last) and the list routes that take the
// fuzzed query.
var (
	newRoutePrefixes = []string{
		"/indexer/nft/v1/collections/by_account/",
		"/indexer/nft/v1/collections/by_name/",
		"/indexer/nft/v1/collections/",
		"/indexer/nft/v1/tokens/by_account/",
		"/indexer/nft/v1/tokens/by_collection/",
		"/indexer/nft/v1/txs/0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/",
		"/indexer/richlist/v1/",
		"/indexer/tx/v1/evm-txs/by_account/",
		"/indexer/tx/v1/evm-txs/by_height/",
		"/indexer/tx/v1/evm-txs/",
		"/indexer/tx/v1/evm-internal-txs/by_account/",
		"/indexer/tx/v1/evm-internal-txs/by_height/",
		"/indexer/tx/v1/evm-internal-txs/",
	}
	newRouteLists = []string{
		"/indexer/nft/v1/collections",
		"/indexer/nft/v1/collections/by_account/init1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg30th3ed",
		"/indexer/nft/v1/tokens/by_account/0x2222222222222222222222222222222222222222",
		"/indexer/nft/v1/tokens/by_collection/0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"/indexer/nft/v1/txs/0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/7",
		"/indexer/richlist/v1/uinit",
		"/indexer/tx/v1/evm-txs",
		"/indexer/tx/v1/evm-txs/by_account/" + acc1,
		"/indexer/tx/v1/evm-internal-txs",
		"/indexer/tx/v1/evm-internal-txs/by_height/23",
	}
)

// FuzzNewRoutes feeds arbitrary path segments and query strings to the NFT, rich list, EVM
// and internal-tx routes (over a store with NFTs, on SQLite and PostgreSQL, and one with the
// EVM chain) and to their own
// parsers: nothing below 500 that is not JSON, no 400 without a reason, no panic. Plain
// `go test` runs the seeds (testdata/fuzz/FuzzNewRoutes holds the checked-in corpus);
// `go test -fuzz=FuzzNewRoutes ./internal/indexer/api` explores.
func FuzzNewRoutes(f *testing.F) {
	for _, s := range []struct{ seg, q string }{
		{"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "order_by=height&pagination.reverse=false"},
		{"init1zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg30th3ed", "collection_addr=0xbb&token_id=7"},
		{url.PathEscape("ünïcode ärt"), "pagination.key=" + b64(`{"height":1,"token_id":"9"}`)},
		{"uinit", "pagination.offset=1&pagination.limit=1"},
		{"evm/" + acc1Hex, "pagination.key=" + b64(`{"height":"x","token_id":1}`)},
		{"ibc/ZZ", "pagination.key=" + b64(`{"token_id":"1","collection_addr":"zz"}`)},
		{"23", "order_by=owner"},
		{"0x" + acc1Hex, "pagination.count_total=false&is_signer=true"},
		{"%", "pagination.key=%%"},
		{"0x" + "ab", "pagination.limit=1001"},
	} {
		f.Add(s.seg, s.q)
	}
	nft := New(Config{ChainID: "nft-1"}, openNFT(f, "sqlite:"+filepath.Join(f.TempDir(), "nft.db")), nil, nil)
	evm := newEVM(testCfg, openLoaded(f, "sqlite:"+filepath.Join(f.TempDir(), "evm.db")), nil, nil)
	// The NFT data on PostgreSQL too, whose text type refuses bytes SQLite compares.
	nftPG := New(Config{ChainID: "nft-1"}, openNFT(f, testutil.PostgresDSN(f)), nil, nil)
	f.Fuzz(func(t *testing.T, seg, rawQuery string) {
		q := query(rawQuery)
		_, err := collectionParam("init", seg)
		isBadRequest(t, err)
		_, _, err = tokenKey("init", q)
		isBadRequest(t, err)
		_, err = orderByParam(q)
		isBadRequest(t, err)
		for _, srv := range []http.Handler{nft, evm, nftPG} {
			for _, p := range newRoutePrefixes {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, request(p, seg, rawQuery))
				checkAnswer(t, rec, p+seg)
			}
			for _, p := range newRouteLists {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, request(p, "", rawQuery))
				checkAnswer(t, rec, p)
			}
		}
	})
}
