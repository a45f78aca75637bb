package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	const keep = 30
	dir := t.TempDir()
	env, out, errb := testEnv(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, []string{"up", "--data-dir", dir, "--port-base", "0", "--indexer-port-base", "0",
			"--router-port", "0", "--interval", "50ms", "--retain-blocks", fmt.Sprint(keep), "--log-level", "warn"})
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("up did not stop")
		}
	}()
	var eps upEndpoints
	deadline := time.Now().Add(120 * time.Second) // generous: the shared machine runs loaded
	for time.Now().Before(deadline) {
		if strings.Contains(out.String(), "ROUTER") {
			b, err := os.ReadFile(filepath.Join(dir, "endpoints.json"))
			if err == nil && json.Unmarshal(b, &eps) == nil {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if eps.Router == "" {
		t.Fatalf("no endpoints.json; stdout %s stderr %s", out, errb)
	}
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
