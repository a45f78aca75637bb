package api

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestPrunedHeights: on a store keeping its newest 40 heights, a pruned height answers a 404
// naming the floor (also after it was answered and cached before the prune), /status reports
// the floor, and a retained height answers the same body as an unpruned store's, on both
// backends.
func TestPrunedHeights(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "idx.db") },
		"postgres": func(t *testing.T) string { return testutil.PostgresDSN(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			bundles := loadChain(t)
			open := func() *store.DB {
				db, err := store.Open(ctx, dsn(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if err := db.WriteBlocks(ctx, bundles[:70]); err != nil {
					t.Fatal(err)
				}
				return db
			}
			full, pruned := open(), open()
			pruned.SetRetention(40)
			h := New(testCfg, pruned, nil, prometheus.NewRegistry())
			ref := New(testCfg, full, nil, prometheus.NewRegistry())
			// Answered (and cached) while still stored. Unpinned, the entry lives only until
			// the indexed height moves; a pruned height can be served from the cache at most
			// until the next block after its prune.
			if rec := do(h, "/indexer/block/v1/blocks/23"); rec.Code != http.StatusOK {
				t.Fatalf("block 23 before the prune: %d %s", rec.Code, rec.Body)
			}
			for _, db := range []*store.DB{full, pruned} {
				if err := db.WriteBlocks(ctx, bundles[70:]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := pruned.Prune(ctx, 40, 10); err != nil {
				t.Fatal(err)
			}
			// 72 heights, 40 kept: 33..72.
			for _, path := range []string{"/indexer/block/v1/blocks/23", "/indexer/block/v1/blocks/32", "/indexer/tx/v1/txs/by_height/23"} {
				rec := do(h, path)
				var body struct {
					Code    int      `json:"code"`
					Message string   `json:"message"`
					Details []string `json:"details"`
				}
				_ = json.Unmarshal(rec.Body.Bytes(), &body)
				if rec.Code != http.StatusNotFound || !strings.Contains(body.Message, "is pruned: lowest retained height is 33") ||
					len(body.Details) != 1 || body.Details[0] != "HEIGHT_PRUNED" {
					t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
				}
			}
			var st statusJSON
			if rec := do(h, "/status"); json.Unmarshal(rec.Body.Bytes(), &st) != nil || st.LowestHeight != 33 || st.Height != 72 {
				t.Errorf("status: %s", rec.Body)
			}
			if rec := do(ref, "/status"); strings.Contains(rec.Body.String(), "lowest_height") {
				t.Errorf("an unpruned store's status names a lowest height: %s", rec.Body)
			}
			for _, path := range []string{"/indexer/block/v1/blocks/33", "/indexer/block/v1/blocks/66", "/indexer/tx/v1/txs/by_height/35",
				"/indexer/tx/v1/txs/by_height/66", "/indexer/block/v1/blocks/abc"} {
				got, want := do(h, path), do(ref, path)
				if got.Code != want.Code || got.Body.String() != want.Body.String() {
					t.Errorf("%s: pruned %d %s, unpruned %d %s", path, got.Code, got.Body, want.Code, want.Body)
				}
			}
		})
	}
}
