package api

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// TestNoNewChainItemUnderOldIDs: an API replica (a reader of a store another handle writes,
// served by NewServing) whose chain-state poll has not yet come round when the writer
// re-indexes the store under its open streams. The first page a stream reads of the new chain
// shows the new epoch: the stream, at the tip or still reading the store, ends at once with
// the CHAIN_RESET error event, and no event before it names an item of the new chain (every
// id it sent is one the old chain gave out). Both backends.
func TestNoNewChainItemUnderOldIDs(t *testing.T) {
	paths := []string{"/indexer/block/v1/blocks/stream", "/indexer/tx/v1/txs/stream"}
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			w, r := open(t)
			fill(t, w, 3) // heights 1..3, tx sequences 1..12
			// The poll reads the chain state once at the start and then not for an hour: only
			// what the streams read themselves can tell them of the re-index.
			hs := httptest.NewServer(NewServing(ctx, Config{ChainID: "c-1", ChainPoll: time.Hour, StreamPoll: 20 * time.Millisecond}, r, nil, nil))
			t.Cleanup(hs.Close)
			srv := hs.URL
			old := map[string]bool{}
			for i := 1; i <= 12; i++ {
				old[strconv.Itoa(i)] = true
			}
			var cs []*streamClient
			for _, p := range paths {
				cs = append(cs, openStream(t, srv+p, "0"))
			}
			cs[0].next(t, 3) // the block stream is at the tip, attached to the shared feed
			cs[1].next(t, 12)
			if err := w.(*store.DB).Reset(ctx); err != nil {
				t.Fatal(err)
			}
			fill(t, w, 6) // the new chain: heights 1..6, sequences 1..24, past every old id
			for i, c := range cs {
				cut := time.AfterFunc(5*time.Second, func() { c.Resp.Body.Close() })
				evs := c.rest()
				for _, ev := range evs {
					if ev.Name != "error" && !old[ev.ID] {
						t.Errorf("%s: event %s id %q after the re-index: not an id of the old chain", paths[i], ev.Name, ev.ID)
					}
				}
				if !cut.Stop() {
					t.Fatalf("%s: the stream did not end when a page of the re-indexed store was read (%d events)", paths[i], len(evs))
				}
				if len(evs) == 0 || evs[len(evs)-1].Name != "error" || !strings.Contains(string(evs[len(evs)-1].Data), `"CHAIN_RESET"`) {
					t.Fatalf("%s: events %v, want the CHAIN_RESET error last", paths[i], evs)
				}
			}
		})
	}
}
