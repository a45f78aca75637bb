package api

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// TestBlockFeed walks the shared window's cases and checks every answer against the store's
// own page after the same height.
func TestBlockFeed(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := storetest.Fill(ctx, db, 400, storetest.Options{TxsPerBlock: 1}); err != nil {
		t.Fatal(err)
	}
	var f blockFeed
	for _, tc := range []struct {
		name        string
		after       int64
		first, last int64 // the window afterwards
	}{
		{"empty window: the store", 0, 1, 100},
		{"inside the window: up to its end", 50, 1, 100},
		{"at the window's end: extended", 100, 1, 200},
		{"extended past its bound: trimmed", 200, 45, 300},
		{"behind the window: the store", 10, 45, 300},
		{"extended again", 300, 145, 400},
		{"at the tip", 400, 145, 400},
		{"past the tip", 500, 145, 400},
	} {
		got, err := f.after(ctx, db, tc.after)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.Blocks(ctx, store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorHeight, Value: tc.after}})
		if err != nil {
			t.Fatal(err)
		}
		// A prefix of the store's page (the window may end first), empty only when the store
		// has nothing after the height.
		if len(got) > len(want.Blocks) || (len(got) == 0) != (len(want.Blocks) == 0) {
			t.Fatalf("%s: %d blocks, the store has %d", tc.name, len(got), len(want.Blocks))
		}
		for i := range got {
			if string(got[i].frame.Bytes()) != string(newFeedBlock(0, &want.Blocks[i], nil).frame.Bytes()) {
				t.Fatalf("%s: block %d differs", tc.name, i)
			}
		}
		if n := len(f.recent); f.recent[0].height != tc.first || f.recent[n-1].height != tc.last {
			t.Errorf("%s: window %d..%d, want %d..%d", tc.name, f.recent[0].height, f.recent[n-1].height, tc.first, tc.last)
		}
	}
}
