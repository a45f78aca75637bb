package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// streamStores opens, per backend, a writer and a separate read-only handle on the same store:
// the API is served from the reader, as an API replica (`--mode api`) is, so the streams can
// learn of new blocks only from the store.
func streamStores() map[string]func(t *testing.T) (store.Store, store.Reader) {
	open := func(t *testing.T, dsn string) (store.Store, store.Reader) {
		ctx := context.Background()
		w, err := store.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		r, err := store.OpenReader(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return w, r
	}
	return map[string]func(t *testing.T) (store.Store, store.Reader){
		"sqlite": func(t *testing.T) (store.Store, store.Reader) {
			return open(t, "sqlite:"+filepath.Join(t.TempDir(), "idx.db"))
		},
		"postgres": func(t *testing.T) (store.Store, store.Reader) { return open(t, testutil.PostgresDSN(t)) },
	}
}

// lateStore is a SQLite store that starts at height 10, as one whose indexer started late or
// that was pruned: an older resume point has expired.
func lateStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "idx.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blk := store.Block{ChainID: "c-1", Height: 10, Hash: make([]byte, 32), Time: time.Unix(1700000000, 0).UTC(), TotalFee: json.RawMessage(`[]`)}
	if err := db.WriteBlocks(context.Background(), []store.BlockBundle{{Block: blk}}); err != nil {
		t.Fatal(err)
	}
	return db
}

var fillOpts = storetest.Options{TxsPerBlock: 4, Accounts: 7, BatchBlocks: 1}

func fill(t *testing.T, w store.Writer, blocks int) {
	t.Helper()
	if err := storetest.Fill(context.Background(), w, blocks*fillOpts.TxsPerBlock, fillOpts); err != nil {
		t.Fatal(err)
	}
}

// caughtUp waits until the API (a separate reader, which caches the indexed height briefly)
// serves what w has written, so the list routes answer for the same data.
func caughtUp(t *testing.T, srv string, w store.Writer) {
	t.Helper()
	h, err := w.IndexedHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(srv + "/status")
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Height int64 }
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err == nil && st.Height >= h {
			return
		}
	}
	t.Fatalf("the API never reached height %d", h)
}

// streamClient is a stream as these tests read it.
type streamClient struct{ *testutil.SSEClient }

func openStream(t *testing.T, url, lastID string) *streamClient {
	t.Helper()
	return &streamClient{testutil.OpenSSE(t, url, lastID)}
}

// rest reads the events left until the server ends the stream.
func (c *streamClient) rest() []sse.Event { return c.Rest() }

// next reads n events, failing after a few seconds.
func (c *streamClient) next(t *testing.T, n int) []sse.Event {
	t.Helper()
	type res struct {
		evs []sse.Event
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var out []sse.Event
		for len(out) < n {
			ev, err := c.R.Next()
			if err != nil {
				ch <- res{out, err}
				return
			}
			out = append(out, ev)
		}
		ch <- res{out, nil}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("after %d of %d events: %v", len(r.evs), n, r.err)
		}
		return r.evs
	case <-time.After(10 * time.Second):
		c.Resp.Body.Close()
		r := <-ch
		t.Fatalf("timed out after %d of %d events", len(r.evs), n)
		return nil
	}
}

// listItems is the list route's answer, oldest first, item by item.
func listItems(t *testing.T, srv, path, key string) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	resp, err := http.Get(srv + path + sep + "pagination.reverse=false&pagination.limit=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body[key], &items); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it)
	}
	return out
}

func data(evs []sse.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = string(ev.Data)
	}
	return out
}

func sameItems(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, the list route has %d items", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: event %d\n%s\nlist item\n%s", what, i, got[i], want[i])
		}
	}
}

func TestStreamsResumeAsListRoutes(t *testing.T) {
	acc, err := address.Bech32("init", storetest.Account(3))
	if err != nil {
		t.Fatal(err)
	}
	streams := []struct {
		name, stream, list, key, event string
	}{
		{"blocks", "/indexer/block/v1/blocks/stream", "/indexer/block/v1/blocks", "blocks", "block"},
		{"txs", "/indexer/tx/v1/txs/stream", "/indexer/tx/v1/txs", "txs", "tx"},
		{"txs by signer", "/indexer/tx/v1/txs/stream?account=" + acc + "&is_signer=true", "/indexer/tx/v1/txs/by_account/" + acc + "?is_signer=true", "txs", "tx"},
		{"txs by account and msgs", "/indexer/tx/v1/txs/stream?account=" + acc + "&msgs=" + storetest.MsgTypes[0],
			"/indexer/tx/v1/txs/by_account/" + acc + "?msgs=" + storetest.MsgTypes[0], "txs", "tx"},
	}
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			fill(t, w, 3)
			srv := httptest.NewServer(New(Config{StreamPoll: 20 * time.Millisecond}, r, nil, nil))
			t.Cleanup(srv.Close)
			for _, tc := range streams {
				t.Run(tc.name, func(t *testing.T) {
					before := len(listItems(t, srv.URL, tc.list, tc.key))
					live := openStream(t, srv.URL+tc.stream, "")
					fill(t, w, 2)
					caughtUp(t, srv.URL, w)
					now := listItems(t, srv.URL, tc.list, tc.key)
					got := live.next(t, len(now)-before)
					live.Resp.Body.Close()
					// Away for 5 blocks, then back with Last-Event-ID.
					fill(t, w, 5)
					caughtUp(t, srv.URL, w)
					back := openStream(t, srv.URL+tc.stream, got[len(got)-1].ID)
					want := listItems(t, srv.URL, tc.list, tc.key)
					got = append(got, back.next(t, len(want)-len(now))...)
					// Then live again: one more block.
					fill(t, w, 1)
					caughtUp(t, srv.URL, w)
					want = listItems(t, srv.URL, tc.list, tc.key)
					got = append(got, back.next(t, len(want)-before-len(got))...)
					sameItems(t, tc.name, data(got), want[before:])
					for _, ev := range got {
						if ev.Name != tc.event {
							t.Fatalf("event named %q", ev.Name)
						}
					}
					// From the start (?from=0): the whole list.
					all := openStream(t, srv.URL+tc.stream+map[bool]string{true: "&", false: "?"}[strings.Contains(tc.stream, "?")]+"from=0", "")
					sameItems(t, tc.name+" from 0", data(all.next(t, len(want))), want)
				})
			}
		})
	}
}

func TestStreamResumeExpiredAndBadInput(t *testing.T) {
	db := lateStore(t)
	srv := httptest.NewServer(New(Config{StreamPoll: 20 * time.Millisecond}, db, nil, nil))
	t.Cleanup(srv.Close)
	c := openStream(t, srv.URL+"/indexer/block/v1/blocks/stream?from=3", "")
	ev := c.next(t, 1)[0]
	if ev.Name != "error" || !strings.Contains(string(ev.Data), "RESUME_POINT_EXPIRED") || !strings.Contains(string(ev.Data), "first retained height 10") {
		t.Errorf("expired resume point: %s %s", ev.Name, ev.Data)
	}
	if _, err := c.R.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("stream not closed after the error: %v", err)
	}
	if ev := openStream(t, srv.URL+"/indexer/block/v1/blocks/stream?from=9", "").next(t, 1)[0]; ev.ID != "10" || ev.Name != "block" {
		t.Errorf("from 9: %+v", ev)
	}
	for _, path := range []string{
		"/indexer/block/v1/blocks/stream?from=-1",
		"/indexer/block/v1/blocks/stream?from=x",
		"/indexer/tx/v1/txs/stream?account=nope",
		"/indexer/tx/v1/txs/stream?from=1.5",
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), `"code":3`) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
	}
}

// stalled holds the stream's writes after the first few until released: a client that stops
// reading, independent of the kernel's socket buffers.
type stalled struct {
	http.ResponseWriter
	mu      *sync.Mutex
	n       *int
	at      int
	release chan struct{}
}

func (s stalled) Write(b []byte) (int, error) {
	s.mu.Lock()
	*s.n++
	n := *s.n
	s.mu.Unlock()
	if n == s.at {
		<-s.release
	}
	return s.ResponseWriter.Write(b)
}

func (s stalled) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func TestStreamSlowClientResumes(t *testing.T) {
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			fill(t, w, 20)
			api := New(Config{StreamPoll: 20 * time.Millisecond, Streams: httpapi.StreamOptions{Buffer: 4, SlowAfter: 50 * time.Millisecond}}, r, nil, nil)
			release := make(chan struct{})
			var mu sync.Mutex
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/stream") && r.Header.Get("Last-Event-ID") == "" {
					// Write 1 is the opening comment, then one per event: the 6th event stalls.
					w = stalled{ResponseWriter: w, mu: &mu, n: &n, at: 7, release: release}
				}
				api.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			want := listItems(t, srv.URL, "/indexer/tx/v1/txs", "txs")
			c := openStream(t, srv.URL+"/indexer/tx/v1/txs/stream?from=0", "")
			time.Sleep(time.Second) // the producer fills the queue and gives up after 50 ms, even on a busy machine
			close(release)
			got := c.rest()
			if len(got) != 7 || got[6].Name != "reconnect" || !strings.Contains(string(got[6].Data), `"last_event_id":"6"`) {
				t.Fatalf("slow client got %d events, last %+v", len(got), got[len(got)-1])
			}
			resumed := openStream(t, srv.URL+"/indexer/tx/v1/txs/stream", got[6].ID)
			all := append(got[:6], resumed.next(t, len(want)-6)...)
			sameItems(t, "slow client resumed", data(all), want)
		})
	}
}

// TestBlockStreamTip: streams at the tip share one goroutine that offers each block to all
// of them; a client that stops reading there is dropped with a resume point once its queue
// is full, resumes without loss, and the others never notice.
func TestBlockStreamTip(t *testing.T) {
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			fill(t, w, 2)
			api := New(Config{StreamPoll: 20 * time.Millisecond, Streams: httpapi.StreamOptions{Buffer: 2}}, r, nil, nil)
			release := make(chan struct{})
			var mu sync.Mutex
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("slow") != "" {
					// Write 1 is the opening comment, then one per event: the 2nd event stalls.
					w = stalled{ResponseWriter: w, mu: &mu, n: &n, at: 3, release: release}
				}
				api.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			caughtUp(t, srv.URL, w)
			fast := []*streamClient{openStream(t, srv.URL+"/indexer/block/v1/blocks/stream", ""), openStream(t, srv.URL+"/indexer/block/v1/blocks/stream", "")}
			slow := openStream(t, srv.URL+"/indexer/block/v1/blocks/stream?slow=1", "")
			time.Sleep(200 * time.Millisecond) // all three attached at the tip
			before := len(listItems(t, srv.URL, "/indexer/block/v1/blocks", "blocks"))
			for range 8 {
				fill(t, w, 1)
				caughtUp(t, srv.URL, w)
			}
			want := listItems(t, srv.URL, "/indexer/block/v1/blocks", "blocks")[before:]
			for i, c := range fast {
				sameItems(t, "fast client "+strconv.Itoa(i), data(c.next(t, len(want))), want)
			}
			close(release)
			got := slow.rest()
			last := got[len(got)-1]
			if last.Name != "reconnect" || len(got) < 2 || len(got) > 4 {
				t.Fatalf("slow client: %d events, last %s %s", len(got), last.Name, last.Data)
			}
			resumed := openStream(t, srv.URL+"/indexer/block/v1/blocks/stream", last.ID)
			all := append(data(got[:len(got)-1]), data(resumed.next(t, len(want)-(len(got)-1)))...)
			sameItems(t, "slow client resumed", all, want)
			if !tipRunning() {
				t.Fatal("no tip goroutine while streams are attached")
			}
			// Once every client has gone, the tip's goroutine ends too.
			for _, c := range append(fast, resumed, slow) {
				c.Resp.Body.Close()
			}
			for deadline := time.Now().Add(5 * time.Second); tipRunning(); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the tip's goroutine outlives its streams")
				}
			}
		})
	}
}

func tipRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*blockFeed).tip")
}
