package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// freshDSNs makes an empty store's DSN on each backend.
func freshDSNs() map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "idx.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	}
}

// TestCacheNeverStale: with the response cache on, answers at the head change as soon as a
// block is indexed, and every answer equals the uncached one, before and after, on both
// backends.
func TestCacheNeverStale(t *testing.T) {
	for name, dsn := range freshDSNs() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, dsn(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			bundles := loadChain(t)
			if err := db.WriteBlocks(ctx, bundles[:30]); err != nil {
				t.Fatal(err)
			}
			noCache := testCfg
			noCache.CacheBytes = -1
			plain, cached := newEVM(noCache, db, nil, prometheus.NewRegistry()), newEVM(testCfg, db, nil, prometheus.NewRegistry())
			const noTotal = "&pagination.count_total=false"
			// Answers at the head first, then pinned ones.
			heads := []string{
				"/indexer/block/v1/blocks?pagination.limit=2",
				"/indexer/block/v1/avg_blocktime",
				"/indexer/tx/v1/txs?pagination.limit=3",
				"/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=2",
				"/indexer/tx/v1/txs/by_height/35", // above the head: an empty list, until it is indexed
				"/indexer/block/v1/blocks/35",     // a 404 until then
				// Without a total, yet still at the head: a descending offset page, an ascending
				// page that is not full, a descending cursor above the head, and a full ascending
				// page whose total grows.
				"/indexer/tx/v1/txs?pagination.limit=3" + noTotal,
				"/indexer/block/v1/blocks?pagination.limit=100&pagination.reverse=false" + noTotal,
				"/indexer/block/v1/blocks?pagination.limit=2" + noTotal + "&pagination.key=" + encodeCursor(store.CursorHeight, 33),
				"/indexer/tx/v1/txs?pagination.limit=2&pagination.reverse=false",
			}
			pinned := []string{
				"/indexer/tx/v1/txs/by_height/23",
				"/indexer/block/v1/blocks/3",
				// List pages whose key pins them (see store's final.go).
				"/indexer/tx/v1/txs?pagination.limit=2&pagination.reverse=false" + noTotal,
				"/indexer/tx/v1/txs/by_account/" + acc1 + "?pagination.limit=1&pagination.reverse=false" + noTotal,
				"/indexer/block/v1/blocks?pagination.limit=2" + noTotal + "&pagination.key=" + encodeCursor(store.CursorHeight, 20),
				"/indexer/block/v1/blocks?pagination.limit=3&pagination.reverse=false&pagination.offset=4" + noTotal,
				"/indexer/tx/v1/txs?pagination.limit=2" + noTotal + "&pagination.key=" + encodeCursor(store.CursorSequence, 5),
			}
			paths := append(append([]string{}, heads...), pinned...)
			check := func(phase string) map[string]string {
				got := map[string]string{}
				for _, p := range paths {
					for i := range 2 { // the second answer may come from the cache
						a, b := do(plain, p), do(cached, p)
						if a.Code != b.Code || a.Body.String() != b.Body.String() || a.Header().Get("Cache-Control") != b.Header().Get("Cache-Control") {
							t.Errorf("%s %s (round %d): cached %d %.200s\nuncached %d %.200s", phase, p, i, b.Code, b.Body, a.Code, a.Body)
						}
						got[p] = b.Body.String()
					}
				}
				return got
			}
			before := check("before")
			if err := db.WriteBlocks(ctx, bundles[30:]); err != nil {
				t.Fatal(err)
			}
			after := check("after")
			for _, p := range heads {
				if before[p] == after[p] {
					t.Errorf("%s did not change when blocks arrived: %.200s", p, after[p])
				}
			}
			for _, p := range pinned {
				if before[p] != after[p] {
					t.Errorf("pinned %s changed", p)
				}
				if rec := do(cached, p); rec.Code != http.StatusOK || rec.Header().Get("ETag") == "" {
					t.Errorf("pinned %s: %d without an ETag", p, rec.Code)
				}
			}
			// The cached API answered from its cache at all.
			if rec := do(cached, "/metrics"); !containsAll(rec.Body.String(), `rollgate_indexer_api_cache_lookups_total{result="hit"}`) {
				t.Error("no cache hit recorded")
			}
		})
	}
}

// TestPinnedETag: a block answers with an ETag, and a client holding it gets a 304.
func TestPinnedETag(t *testing.T) {
	h := newEVM(testCfg, backends(t)["sqlite"](t), nil, nil)
	for _, path := range []string{"/indexer/block/v1/blocks/35", "/indexer/tx/v1/txs/" + txSend, "/indexer/tx/v1/txs/by_height/23"} {
		first := do(h, path)
		etag := first.Header().Get("ETag")
		if first.Code != 200 || etag == "" {
			t.Fatalf("%s: %d, ETag %q", path, first.Code, etag)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://idx.test"+path, nil)
		req.Header.Set("If-None-Match", etag)
		rec := serveReq(h, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("%s with If-None-Match: %d %q", path, rec.Code, rec.Body)
		}
	}
	if rec := do(h, "/indexer/block/v1/blocks?pagination.limit=1"); rec.Header().Get("ETag") != "" {
		t.Error("a list at the head has an ETag")
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

func serveReq(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
