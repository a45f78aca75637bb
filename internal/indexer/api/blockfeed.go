package api

import (
	"context"
	"sync"

	"github.com/rollgate/rollgate/internal/store"
)

// blockWindow is the number of newest blocks the block streams share.
const blockWindow = 256

// blockFeed shares the newest blocks among the block streams of the process: when a block is
// indexed, every stream at the tip asks for the blocks after the same height, and one store
// query answers them all (the first asks the store, under the lock; the others find the
// blocks in the window). A stream resuming further back reads the store itself.
type blockFeed struct {
	mu     sync.Mutex
	recent []store.Block // consecutive heights, ascending
}

// after returns up to streamPage blocks after the height, in order.
func (f *blockFeed) after(ctx context.Context, r store.Reader, after int64) ([]store.Block, error) {
	f.mu.Lock()
	if n := len(f.recent); n > 0 {
		first, last := f.recent[0].Height, f.recent[n-1].Height
		switch {
		case after+1 >= first && after < last:
			i := int(after + 1 - first)
			// The window is replaced, never changed in place: the caller may keep this slice.
			bs := f.recent[i:min(n, i+streamPage)]
			f.mu.Unlock()
			return bs, nil
		case after < first-1:
			// Behind the window: this stream's own query, without holding the others.
			f.mu.Unlock()
			return f.query(ctx, r, after)
		}
	}
	defer f.mu.Unlock()
	bs, err := f.query(ctx, r, after)
	if err != nil || len(bs) == 0 {
		return bs, err
	}
	next := make([]store.Block, 0, len(f.recent)+len(bs))
	if n := len(f.recent); n > 0 && bs[0].Height == f.recent[n-1].Height+1 {
		next = append(next, f.recent...)
	}
	next = append(next, bs...)
	if n := len(next); n > blockWindow {
		next = next[n-blockWindow:]
	}
	f.recent = next
	return bs, nil
}

func (f *blockFeed) query(ctx context.Context, r store.Reader, after int64) ([]store.Block, error) {
	page, err := r.Blocks(ctx, store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorHeight, Value: after}})
	return page.Blocks, err
}
