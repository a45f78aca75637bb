package api

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// blockWindow is the number of newest blocks the block streams share.
const blockWindow = 256

// feedBlock is a block of the shared window with its event, framed once for every stream.
type feedBlock struct {
	height int64
	frame  *httpapi.Frame
}

func newFeedBlock(epoch int64, b *store.Block, buf []byte) feedBlock {
	buf = appendBlockJSON(buf[:0], b)
	return feedBlock{height: b.Height, frame: httpapi.NewFrame(streamID(epoch, strconv.FormatInt(b.Height, 10)), "block", buf)}
}

// blockFeed shares the newest blocks among the block streams of the process, each encoded and
// framed once. A stream resuming from the store reads pages of frames through after (behind
// the window it reads the store itself); once at the tip it attaches to the feed, and one
// goroutine (the tip's) waits for the next block and offers its frame to every attached
// stream: a subscriber at the tip costs its connection and its queue, no goroutine of its own,
// and a block costs one store read and one encoding however many subscribers there are.
//
// The attached streams are spread over one shard per CPU, and a block is offered to the
// shards in parallel: an Offer wakes the stream's writer on the offering goroutine's CPU, so
// one offering goroutine would queue all 10,000 writers behind one CPU and leave the others
// to steal them.
type blockFeed struct {
	mu    sync.Mutex
	epoch int64 // the store's epoch the frames' ids carry (reset)
	// moved, when set, reads the store's epoch again and reports whether it is no longer e
	// (the server then resets the feed and ends the attached streams with CHAIN_RESET): the
	// tip asks it before offering blocks, so no block of a re-indexed chain goes out under an
	// id of the dropped one; a failed read offers nothing (the tip reads the blocks again).
	moved  func(ctx context.Context, e int64) (bool, error)
	recent []feedBlock // consecutive heights, ascending

	// The tip: the attached streams (each in one shard, with the height it has been sent up
	// to), and the last height offered to all of them. stop ends the tip's goroutine (nil
	// when none runs). next is the shard the next attached stream goes to.
	subs   map[*httpapi.Stream]*feedSub
	shards []map[*httpapi.Stream]*feedSub
	next   int
	sent   int64
	stop   context.CancelFunc
}

// feedSub is one stream attached to the tip.
type feedSub struct {
	at    int64 // the last height offered to it
	shard int
}

// after returns up to streamPage blocks after the height, in order.
func (f *blockFeed) after(ctx context.Context, r store.Reader, after int64) ([]feedBlock, error) {
	f.mu.Lock()
	if n := len(f.recent); n > 0 {
		first, last := f.recent[0].height, f.recent[n-1].height
		switch {
		case after+1 >= first && after < last:
			i := int(after + 1 - first)
			// The window is replaced, never changed in place: the caller may keep this slice.
			bs := f.recent[i:min(n, i+streamPage)]
			f.mu.Unlock()
			return bs, nil
		case after < first-1:
			// Behind the window: this stream's own query, without holding the others.
			epoch := f.epoch
			f.mu.Unlock()
			return f.query(ctx, r, epoch, after)
		}
	}
	defer f.mu.Unlock()
	bs, err := f.query(ctx, r, f.epoch, after)
	if err != nil || len(bs) == 0 {
		return bs, err
	}
	next := make([]feedBlock, 0, len(f.recent)+len(bs))
	if n := len(f.recent); n > 0 && bs[0].height == f.recent[n-1].height+1 {
		next = append(next, f.recent...)
	}
	next = append(next, bs...)
	if n := len(next); n > blockWindow {
		next = next[n-blockWindow:]
	}
	f.recent = next
	return bs, nil
}

func (f *blockFeed) query(ctx context.Context, r store.Reader, epoch, after int64) ([]feedBlock, error) {
	page, err := r.Blocks(ctx, store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorHeight, Value: after}})
	if err != nil {
		return nil, err
	}
	out := make([]feedBlock, len(page.Blocks))
	buf := make([]byte, 0, blockJSONSize)
	for i := range page.Blocks {
		out[i] = newFeedBlock(epoch, &page.Blocks[i], buf)
	}
	return out, nil
}

// reset starts the feed over for the store's new epoch (a re-index): the window holds the
// dropped chain's blocks under its ids, and the tip's height is the dropped chain's. The
// attached streams are let go: their chain is gone (the server ends them with CHAIN_RESET).
func (f *blockFeed) reset(epoch int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epoch, f.recent = epoch, nil
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
	f.subs, f.shards, f.sent = nil, nil, 0
}

// attach hands st, which has been sent every block up to height after under ids of epoch,
// to the tip. It fails (attached false) when the tip has moved on by more than the window
// holds since: the stream then reads on from the store and tries again; and with stale
// true, attaching nothing, when the feed is at another epoch than the stream (the store was
// re-indexed since the stream read its last page: the tip would send it the new chain).
func (f *blockFeed) attach(st *httpapi.Stream, epoch, after int64, r store.Reader, watch *store.HeightWatcher) (attached, stale bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.epoch != epoch {
		return false, true
	}
	if f.stop == nil {
		// No tip running: this stream's position is where it starts.
		ctx, cancel := context.WithCancel(context.Background())
		f.stop, f.sent, f.subs = cancel, after, map[*httpapi.Stream]*feedSub{}
		f.shards = make([]map[*httpapi.Stream]*feedSub, max(1, runtime.GOMAXPROCS(0)))
		for i := range f.shards {
			f.shards[i] = map[*httpapi.Stream]*feedSub{}
		}
		go f.tip(ctx, r, watch)
	}
	if after < f.sent {
		// The tip is ahead: the blocks between come from the window.
		n := len(f.recent)
		if n == 0 || after+1 < f.recent[0].height || f.recent[n-1].height < f.sent {
			return false, false
		}
		for _, b := range f.recent[after+1-f.recent[0].height:] {
			if b.height > f.sent {
				break
			}
			if !st.Offer(b.frame) {
				return true, false // dropped as too slow (or gone): its stream ends with a resume point
			}
			after = b.height
		}
	}
	sub := &feedSub{at: after, shard: f.next}
	f.next = (f.next + 1) % len(f.shards)
	f.subs[st] = sub
	f.shards[sub.shard][st] = sub
	// A stream whose client goes leaves at once, not at the next block.
	context.AfterFunc(st.Context(), func() { f.detach(st) })
	return true, false
}

func (f *blockFeed) detach(st *httpapi.Stream) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sub, ok := f.subs[st]
	if !ok {
		return
	}
	delete(f.subs, st)
	delete(f.shards[sub.shard], st)
	if len(f.subs) == 0 && f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

// tip waits for each new block and offers its frame to every attached stream, until the
// last one leaves (ctx).
func (f *blockFeed) tip(ctx context.Context, r store.Reader, watch *store.HeightWatcher) {
	for {
		f.mu.Lock()
		sent, epoch := f.sent, f.epoch
		f.mu.Unlock()
		if _, err := watch.Wait(ctx, sent); err != nil {
			return
		}
		bs, err := f.after(ctx, r, sent)
		if err == nil && len(bs) > 0 && f.moved != nil {
			moved, merr := f.moved(ctx, epoch)
			if moved && merr == nil {
				return // the feed was reset: these blocks may be of the new chain
			}
			err = merr
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The store is away for a moment: the streams wait, as a list request would retry.
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		f.mu.Lock()
		if ctx.Err() != nil {
			f.mu.Unlock()
			return
		}
		f.offer(bs)
		if len(f.subs) == 0 {
			f.stop()
			f.stop = nil
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
}

// offer offers the blocks, in order, to every attached stream, one goroutine per shard; f.mu
// is held, and each goroutine changes only its own shard's map and entries.
func (f *blockFeed) offer(bs []feedBlock) {
	var wg sync.WaitGroup
	dropped := make([][]*httpapi.Stream, len(f.shards))
	for i, shard := range f.shards {
		if len(shard) == 0 {
			continue
		}
		wg.Go(func() {
			for _, b := range bs {
				for st, sub := range shard {
					if b.height <= sub.at {
						continue
					}
					if !st.Offer(b.frame) {
						// Too slow or gone: its stream ends (with a resume point) and the
						// client comes back through the store.
						delete(shard, st)
						dropped[i] = append(dropped[i], st)
						continue
					}
					sub.at = b.height
				}
			}
		})
	}
	wg.Wait()
	for _, sts := range dropped {
		for _, st := range sts {
			delete(f.subs, st)
		}
	}
	if n := len(bs); n > 0 {
		f.sent = bs[n-1].height
	}
}
