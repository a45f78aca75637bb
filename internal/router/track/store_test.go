package track

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// backends opens a fresh store on each backend: SQLite always, PostgreSQL when reachable
// (required in CI).
func backends(t *testing.T) map[string]func(t *testing.T) (*Store, string) {
	return map[string]func(t *testing.T) (*Store, string){
		"sqlite": func(t *testing.T) (*Store, string) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "track.db")
			return openT(t, dsn), dsn
		},
		"postgres": func(t *testing.T) (*Store, string) {
			dsn := testutil.PostgresDSN(t)
			return openT(t, dsn), dsn
		},
	}
}

func openT(t *testing.T, dsn string) *Store {
	t.Helper()
	st, err := OpenStore(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestStore(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, dsn := open(t)
			// Opening again applies nothing twice.
			again := openT(t, dsn)
			now := time.Unix(1_700_000_000, 0)

			created, err := st.Register(ctx, "a-1", "H1", "", now, 0, []byte(`{"state":"STATE_SUBMITTED"}`))
			if err != nil || !created {
				t.Fatalf("register: %v %v", created, err)
			}
			if created, err := again.Register(ctx, "a-1", "H1", "r9", now.Add(time.Second), time.Hour, []byte(`{}`)); err != nil || created {
				t.Fatalf("second register created=%v err=%v; want an idempotent no-op", created, err)
			}
			if _, err := st.Get(ctx, "a-1", "H2"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("unknown tx: %v", err)
			}
			tr, err := st.Get(ctx, "a-1", "H1")
			if err != nil || tr.State != StateSubmitted || string(tr.Doc) != `{"state":"STATE_SUBMITTED"}` || !tr.Created.Equal(now) {
				t.Fatalf("get: %+v %v", tr, err)
			}
			pend, err := st.Pending(ctx, "a-1")
			if err != nil || !pend["H1"] || len(pend) != 1 {
				t.Fatalf("pending %v %v", pend, err)
			}

			// Events: stored once however often a scan or a lookup reports them.
			ev := Event{ChainID: "a-1", Kind: KindSend, Key: "transfer/channel-0/1", Height: 5, TxIndex: 0, Pos: 3, MsgIndex: 0,
				TxHash: "H1", Time: now.UTC(), Attrs: map[string]string{"packet_sequence": "1"}}
			if _, ok, err := st.LeaseCursor(ctx, "a-1", "r1", now, time.Minute, 0); err != nil || !ok {
				t.Fatalf("lease cursor: %v %v", ok, err)
			}
			if _, ok, err := again.LeaseCursor(ctx, "a-1", "r2", now, time.Minute, 0); err != nil || ok {
				t.Fatalf("a second replica leased a held cursor: %v %v", ok, err)
			}
			if err := st.SaveBlocks(ctx, "a-1", "r1", []Event{ev}, Cursor{Height: 5, Time: now}); err != nil {
				t.Fatal(err)
			}
			if err := st.SaveBlocks(ctx, "a-1", "r2", nil, Cursor{Height: 6, Time: now}); err == nil {
				t.Fatal("a replica without the lease advanced the cursor")
			}
			if err := st.InsertEvents(ctx, []Event{ev}); err != nil {
				t.Fatal(err)
			}
			got, err := st.Find(ctx, "a-1", KindSend, "transfer/channel-0/1")
			if err != nil || got == nil || got.Attrs["packet_sequence"] != "1" || !got.Time.Equal(now) || got.Height != 5 {
				t.Fatalf("find: %+v %v", got, err)
			}
			if evs, err := st.TxEvents(ctx, "a-1", "H1"); err != nil || len(evs) != 1 {
				t.Fatalf("tx events: %d %v", len(evs), err)
			}
			keys, last, err := st.Since(ctx, 0, 100)
			if err != nil || len(keys) != 1 || keys[0] != (EventKey{"a-1", KindSend, "transfer/channel-0/1"}) || last != got.ID {
				t.Fatalf("since: %v %d %v", keys, last, err)
			}
			if ct, err := st.ChainTime(ctx, "a-1"); err != nil || !ct.Equal(now) {
				t.Fatalf("chain time %v %v", ct, err)
			}
			c, ok, err := st.LeaseCursor(ctx, "a-1", "r1", now, time.Minute, 0)
			if err != nil || !ok || c.Height != 5 {
				t.Fatalf("cursor after save: %+v %v %v", c, ok, err)
			}

			// Leases: the holder updates; another replica may not until the lease expires.
			cl, fresh, err := st.Claim(ctx, "r1", now, time.Minute, 10)
			if err != nil || len(cl) != 1 || fresh != 1 {
				t.Fatalf("claim: %v %v", cl, err)
			}
			if cl2, _, err := again.Claim(ctx, "r2", now.Add(time.Second), time.Minute, 10); err != nil || len(cl2) != 0 {
				t.Fatalf("r2 claimed a leased transfer: %v %v", cl2, err)
			}
			if ok, err := again.Update(ctx, "r2", "a-1", "H1", StatePending, false, []byte(`{}`), now); err != nil || ok {
				t.Fatalf("r2 updated r1's transfer: %v %v", ok, err)
			}
			if ok, err := st.Update(ctx, "r1", "a-1", "H1", StatePending, false, []byte(`{"state":"STATE_PENDING"}`), now); err != nil || !ok {
				t.Fatalf("r1 update: %v %v", ok, err)
			}
			if cl2, _, err := again.Claim(ctx, "r2", now.Add(2*time.Minute), time.Minute, 10); err != nil || len(cl2) != 1 {
				t.Fatalf("r2 could not take over an expired lease: %v %v", cl2, err)
			}
			if ok, err := again.Update(ctx, "r2", "a-1", "H1", StateCompletedSuccess, true, []byte(`{}`), now); err != nil || !ok {
				t.Fatalf("r2 update: %v %v", ok, err)
			}
			if cl, _, err := st.Claim(ctx, "r1", now.Add(time.Hour), time.Minute, 10); err != nil || len(cl) != 0 {
				t.Fatalf("a terminal transfer was claimed: %v %v", cl, err)
			}
			counts, err := st.Counts(ctx)
			if err != nil || counts[StateCompletedSuccess] != 1 {
				t.Fatalf("counts %v %v", counts, err)
			}
		})
	}
}

// TestClaimExclusive: replicas claiming concurrently never hold the same transfer.
func TestClaimExclusive(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, dsn := open(t)
			now := time.Unix(1_700_000_000, 0)
			const n = 300
			for i := 0; i < n; i++ {
				if _, err := st.Register(ctx, "a-1", fmt.Sprintf("H%03d", i), "", now, 0, []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			stores := []*Store{st, openT(t, dsn), openT(t, dsn)}
			var mu sync.Mutex
			owner := map[string]string{}
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for r, s := range stores {
				wg.Add(1)
				go func(name string, s *Store) {
					defer wg.Done()
					for round := 0; round < 10; round++ {
						cl, _, err := s.Claim(ctx, name, now, time.Hour, 20)
						if err != nil {
							errs <- err
							return
						}
						mu.Lock()
						for _, c := range cl {
							if o, ok := owner[c.TxHash]; ok && o != name {
								errs <- fmt.Errorf("%s claimed by %s and %s", c.TxHash, o, name)
							}
							owner[c.TxHash] = name
						}
						mu.Unlock()
					}
				}(fmt.Sprintf("r%d", r), s)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if len(owner) == 0 {
				t.Fatal("nothing claimed")
			}
			per := map[string]int{}
			for _, o := range owner {
				per[o]++
			}
			t.Logf("%d of %d claimed: %v", len(owner), n, per)
		})
	}
}

// TestStoreMany: the bulk lookups a batch evaluation uses answer what the one-at-a-time
// lookups answer, on both backends, across the IN-list chunk size.
func TestStoreMany(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, _ := open(t)
			var evs []Event
			var keys, hashes []string
			var msgIdx []int
			at := time.Unix(1_767_225_600, 0).UTC()
			n := inChunk + 7
			for i := 0; i < n; i++ {
				key := fmt.Sprintf("transfer/channel-0/%d", i)
				hash := fmt.Sprintf("%064X", i)
				// Two events per key (a second one later): Find wants the first.
				evs = append(evs,
					Event{ChainID: "a-1", Kind: KindRecv, Key: key, Height: 5, TxIndex: 0, Pos: 2 * i, MsgIndex: i, TxHash: "RELAY", Time: at, Attrs: map[string]string{"n": fmt.Sprint(i)}},
					Event{ChainID: "a-1", Kind: KindWAck, Key: key, Height: 5, TxIndex: 0, Pos: 2*i + 1, MsgIndex: i, TxHash: "RELAY", Time: at, Attrs: map[string]string{}},
					Event{ChainID: "a-1", Kind: KindRecv, Key: key, Height: 9, TxIndex: 1, Pos: i, MsgIndex: i, TxHash: hash, Time: at, Attrs: map[string]string{}},
					Event{ChainID: "a-1", Kind: KindTx, Key: hash, Height: 9, TxIndex: 1, Pos: -1 - i, MsgIndex: -1, TxHash: hash, Time: at, Attrs: map[string]string{"code": "0"}})
				keys, hashes, msgIdx = append(keys, key), append(hashes, hash), append(msgIdx, i)
			}
			if err := st.InsertEvents(ctx, evs); err != nil {
				t.Fatal(err)
			}
			keys, hashes, msgIdx = append(keys, "none"), append(hashes, "NONE"), append(msgIdx, n+1)
			found, err := st.FindMany(ctx, "a-1", KindRecv, keys)
			if err != nil {
				t.Fatal(err)
			}
			byTx, err := st.TxEventsMany(ctx, "a-1", hashes)
			if err != nil {
				t.Fatal(err)
			}
			byMsg, err := st.MsgEventsMany(ctx, "a-1", 5, 0, KindWAck, msgIdx)
			if err != nil {
				t.Fatal(err)
			}
			for i, key := range keys {
				one, err := st.Find(ctx, "a-1", KindRecv, key)
				if err != nil {
					t.Fatal(err)
				}
				if (one == nil) != (found[key] == nil) || (one != nil && (one.ID != found[key].ID || one.Height != 5)) {
					t.Fatalf("FindMany %s: %+v, Find: %+v", key, found[key], one)
				}
				txs, err := st.TxEvents(ctx, "a-1", hashes[i])
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(txs) != fmt.Sprint(byTx[hashes[i]]) {
					t.Fatalf("TxEventsMany %s: %v, TxEvents: %v", hashes[i], byTx[hashes[i]], txs)
				}
				msg, err := st.MsgEvents(ctx, "a-1", 5, 0, msgIdx[i], KindWAck)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(msg) != fmt.Sprint(byMsg[msgIdx[i]]) {
					t.Fatalf("MsgEventsMany %d: %v, MsgEvents: %v", msgIdx[i], byMsg[msgIdx[i]], msg)
				}
			}
			if len(found) != n || len(byTx) != n || len(byMsg) != n {
				t.Fatalf("answers for %d, %d, %d keys; want %d each", len(found), len(byTx), len(byMsg), n)
			}
		})
	}
}
