package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
)

// restBlip fails the REST tx JSON of each height once and counts the calls per height.
type restBlip struct {
	*fakeChain
	mu     sync.Mutex
	blocks map[int64]int
	rest   map[int64]int
}

func (c *restBlip) Block(ctx context.Context, h int64) (*RawBlock, error) {
	c.mu.Lock()
	c.blocks[h]++
	c.mu.Unlock()
	return c.fakeChain.Block(ctx, h)
}

func (c *restBlip) BlockTxs(ctx context.Context, h int64) ([]json.RawMessage, error) {
	c.mu.Lock()
	c.rest[h]++
	first := c.rest[h] == 1
	c.mu.Unlock()
	if first {
		return nil, errors.New("REST: connection reset (injected)")
	}
	return c.fakeChain.BlockTxs(ctx, h)
}

// TestRetryFetchesOnlyWhatFailed: when the REST tx JSON of a height fails, the retry asks
// only for it again, not for the block it already has.
func TestRetryFetchesOnlyWhatFailed(t *testing.T) {
	src := &restBlip{fakeChain: newFakeChain(40, 0), blocks: map[int64]int{}, rest: map[int64]int{}}
	w := &memWriter{}
	cfg := fastConfig()
	cfg.StopAtHeight = 40
	runPipeline(t, cfg, src, w, nil)
	checkChain(t, w, 1, 40)
	retried := 0
	for h := int64(1); h <= 40; h++ {
		if src.rest[h] == 2 {
			retried++
		}
		if src.blocks[h] != 1 {
			t.Errorf("height %d: /block asked %d times", h, src.blocks[h])
		}
	}
	if retried == 0 {
		t.Fatal("no REST call was retried: the test exercised nothing")
	}
}
