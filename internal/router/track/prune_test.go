package track

import (
	"context"
	"testing"
	"time"
)

// TestPruneEvents: events older than keep go, newer ones stay, and while a transfer is in
// flight every event from keep before its registration stays, on both backends.
func TestPruneEvents(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, _ := open(t)
			t0 := time.Unix(1_700_000_000, 0)
			var evs []Event
			for i := range 10 { // one event a minute, t0 .. t0+9m
				evs = append(evs, Event{ChainID: "a-1", Kind: "send", Key: "transfer/channel-0/" + string(rune('0'+i)), Height: int64(i + 1),
					TxHash: "H", Time: t0.Add(time.Duration(i) * time.Minute), Attrs: map[string]string{"i": "x"}})
			}
			if err := st.InsertEvents(ctx, evs); err != nil {
				t.Fatal(err)
			}
			count := func() int {
				keys, _, err := st.Since(ctx, 0, 100)
				if err != nil {
					t.Fatal(err)
				}
				return len(keys)
			}
			// A transfer registered at t0+6m is in flight: with keep 2m, nothing from t0+4m on
			// goes, though now-keep is t0+7m.
			if _, err := st.Register(ctx, "a-1", "T1", "", t0.Add(6*time.Minute), 0, []byte(`{}`)); err != nil {
				t.Fatal(err)
			}
			n, err := st.PruneEvents(ctx, t0.Add(9*time.Minute), 2*time.Minute)
			if err != nil || n != 4 || count() != 6 {
				t.Fatalf("in flight: pruned %d (%v), %d left; want 4 and 6", n, err, count())
			}
			// Terminal: the cut is now-keep again (t0+7m), events t0+7m.. stay.
			if ok, err := st.Update(ctx, "", "a-1", "T1", "STATE_COMPLETED_SUCCESS", true, []byte(`{}`), t0.Add(8*time.Minute)); err != nil || !ok {
				t.Fatalf("update: %v %v", ok, err)
			}
			n, err = st.PruneEvents(ctx, t0.Add(9*time.Minute), 2*time.Minute)
			if err != nil || n != 3 || count() != 3 {
				t.Fatalf("terminal: pruned %d (%v), %d left; want 3 and 3", n, err, count())
			}
			if n, err := st.PruneEvents(ctx, t0.Add(time.Hour), 0); err != nil || n != 0 || count() != 3 {
				t.Fatalf("keep 0 pruned %d (%v)", n, err)
			}
		})
	}
}
