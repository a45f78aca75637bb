package track

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStoreRetrack: only an abandoned transfer is put back to STATE_SUBMITTED (non-terminal,
// a new registration time, leased to the retrying replica, watched again as pending); any
// other state is left alone, and an unregistered one is ErrNotFound.
func TestStoreRetrack(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, _ := open(t)
			t0 := time.Unix(1_700_000_000, 0)
			for _, h := range []string{"LOST", "DONE"} {
				if _, err := st.Register(ctx, "a-1", h, "r1", t0, time.Minute, []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			if ok, err := st.Update(ctx, "r1", "a-1", "LOST", StateAbandoned, true, []byte(`{"state":"STATE_ABANDONED"}`), t0); err != nil || !ok {
				t.Fatalf("abandon: %v %v", ok, err)
			}
			if ok, err := st.Update(ctx, "r1", "a-1", "DONE", StateCompletedError, true, []byte(`{"state":"STATE_COMPLETED_ERROR"}`), t0); err != nil || !ok {
				t.Fatalf("complete: %v %v", ok, err)
			}
			t1 := t0.Add(time.Hour)
			if again, err := st.Retrack(ctx, "a-1", "LOST", "r2", t1, time.Minute, []byte(`{"state":"STATE_SUBMITTED"}`)); err != nil || !again {
				t.Fatalf("retrack abandoned: %v %v", again, err)
			}
			tr, err := st.Get(ctx, "a-1", "LOST")
			if err != nil || tr.State != StateSubmitted || tr.Terminal || !tr.Created.Equal(t1) || string(tr.Doc) != `{"state":"STATE_SUBMITTED"}` {
				t.Fatalf("after retrack: %+v %v", tr, err)
			}
			if pend, err := st.Pending(ctx, "a-1"); err != nil || !pend["LOST"] || pend["DONE"] {
				t.Fatalf("pending after retrack: %v %v", pend, err)
			}
			held, _, err := st.Claim(ctx, "r2", t1, time.Minute, 10)
			if err != nil || len(held) != 1 || held[0].TxHash != "LOST" {
				t.Fatalf("r2 holds %+v %v", held, err)
			}
			// Not abandoned (any more): nothing changes.
			for _, h := range []string{"LOST", "DONE"} {
				before, _ := st.Get(ctx, "a-1", h)
				if again, err := st.Retrack(ctx, "a-1", h, "r3", t1.Add(time.Hour), time.Minute, []byte(`{}`)); err != nil || again {
					t.Fatalf("retrack %s: %v %v", h, again, err)
				}
				if after, _ := st.Get(ctx, "a-1", h); after.State != before.State || string(after.Doc) != string(before.Doc) || !after.Created.Equal(before.Created) {
					t.Fatalf("retrack changed %s: %+v → %+v", h, before, after)
				}
			}
			if _, err := st.Retrack(ctx, "a-1", "NOPE", "r2", t1, time.Minute, []byte(`{}`)); !errors.Is(err, ErrNotFound) {
				t.Fatalf("retrack unregistered: %v", err)
			}
		})
	}
}
