package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestUpIndexersKeepWhatTheDevnetKeeps: under `up` each indexer prunes to the devnet's
// --retain-blocks, reports its floor in /status, answers a pruned height with a 404 naming the
// floor and a retained one as before.
func TestUpIndexersKeepWhatTheDevnetKeeps(t *testing.T) {
	defer func(d time.Duration) { pruneInterval = d }(pruneInterval)
	pruneInterval = 100 * time.Millisecond
	// The chains answer nothing older than their last keep blocks, so an indexer that falls
	// more than keep × interval behind (a loaded machine starting four indexers at once) finds
	// its next height pruned: 60 blocks of 100 ms leave it 6 s, where 30 of 50 ms left 1.5 s
	// and stalled the test under load (an indexer at height 1 after 120 s).
	const keep = 60
	deadline := time.Now().Add(120 * time.Second) // generous: the shared machine runs loaded
	u := startUp(t, t.TempDir(), 120*time.Second, "--interval", "100ms", "--retain-blocks", fmt.Sprint(keep), "--log-level", "warn")
	defer u.stop(t)
	eps := u.eps
	for id, c := range eps.Chains {
		if c.Indexer == "" {
			continue
		}
		var st struct {
			Height       int64 `json:"height"`
			LowestHeight int64 `json:"lowest_height"`
		}
		for time.Now().Before(deadline) && st.LowestHeight <= 1 {
			time.Sleep(100 * time.Millisecond)
			getJSON(t, c.Indexer+"/status", &st)
		}
		// The floor trails the head by the retention plus what one prune interval indexes.
		if st.LowestHeight <= 1 || st.Height-st.LowestHeight+1 < keep || st.Height-st.LowestHeight+1 > 4*keep {
			t.Fatalf("%s: /status %+v with %d kept", id, st, keep)
		}
		var e struct {
			Message string   `json:"message"`
			Details []string `json:"details"`
		}
		if code := getJSON(t, c.Indexer+"/indexer/block/v1/blocks/1", &e); code != 404 ||
			!strings.Contains(e.Message, "is pruned: lowest retained height is") || len(e.Details) != 1 || e.Details[0] != "HEIGHT_PRUNED" {
			t.Errorf("%s: block 1: %d %+v", id, code, e)
		}
		var blk struct {
			Block struct {
				Height string `json:"height"`
			} `json:"block"`
		}
		if code := getJSON(t, fmt.Sprintf("%s/indexer/block/v1/blocks/%d", c.Indexer, st.Height), &blk); code != 200 || blk.Block.Height != fmt.Sprint(st.Height) {
			t.Errorf("%s: block %d: %d %+v", id, st.Height, code, blk)
		}
	}
}
