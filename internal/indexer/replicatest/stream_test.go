package replicatest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
)

// streamTape is one client of an SSE stream on a replica, across its reconnections: every
// event it received, in order. A reconnection sends the id of the last event it dispatched as
// Last-Event-ID, as EventSource does.
type streamTape struct {
	t       *testing.T
	url     string // the stream's route
	event   string // the name every event must carry
	query   string // of the first connection
	mu      sync.Mutex
	evs     []sse.Event
	ends    []error // why each connection's reading ended (nil: cut by the test)
	resp    *http.Response
	done    chan struct{}
	cutting bool
}

// open connects; query is added to the first connection only (from=0), later ones resume
// with Last-Event-ID. It may run outside the test's goroutine, so it reports with Errorf.
func (s *streamTape) open(query string) {
	s.t.Helper()
	url := s.url
	s.mu.Lock()
	last := ""
	if n := len(s.evs); n > 0 {
		last = s.evs[n-1].ID
	}
	s.mu.Unlock()
	// Nothing received yet: reconnect as first (without Last-Event-ID the stream would start
	// at the newest item and skip the rest).
	if query != "" {
		s.query = query
	}
	if last == "" && s.query != "" {
		url += "?" + s.query
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		s.t.Error(err)
		return
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	// No client timeout: the stream lives as long as the test holds it.
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // held in s.resp and closed by the cut or the end
	if err != nil {
		s.t.Errorf("GET %s: %v", url, err)
		return
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		s.t.Errorf("GET %s (Last-Event-ID %q): %d %s", url, last, resp.StatusCode, resp.Header.Get("Content-Type"))
		return
	}
	s.mu.Lock()
	s.resp, s.done, s.cutting = resp, make(chan struct{}), false
	done := s.done
	s.mu.Unlock()
	go func() {
		defer close(done)
		rd := sse.NewReader(resp.Body)
		for {
			ev, err := rd.Next()
			s.mu.Lock()
			if err != nil {
				if !s.cutting {
					s.ends = append(s.ends, err)
				}
				s.mu.Unlock()
				return
			}
			s.evs = append(s.evs, ev)
			s.mu.Unlock()
		}
	}()
}

// cut drops the connection and waits until its reader stopped.
func (s *streamTape) cut() {
	s.mu.Lock()
	s.cutting = true
	resp, done := s.resp, s.done
	s.mu.Unlock()
	if resp == nil {
		return
	}
	resp.Body.Close()
	<-done
}

func (s *streamTape) snapshot() ([]sse.Event, []error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.evs), slices.Clone(s.ends)
}

// listAll is a list route's whole answer, oldest first, item by item (pages of 1000).
func listAll(t *testing.T, base, path, key string) []string {
	t.Helper()
	var out []string
	for off := 0; ; off += 1000 {
		a, ok := get200(t, fmt.Sprintf("%s%s?pagination.reverse=false&pagination.limit=1000&pagination.offset=%d", base, path, off))
		if !ok {
			t.FailNow()
		}
		var body map[string]json.RawMessage
		var items []json.RawMessage
		if err := json.Unmarshal(a.body, &body); err != nil {
			t.Fatalf("%s%s: %v", base, path, err)
		}
		if err := json.Unmarshal(body[key], &items); err != nil {
			t.Fatalf("%s%s .%s: %v", base, path, key, err)
		}
		for _, it := range items {
			out = append(out, string(it))
		}
		if len(items) < 1000 {
			return out
		}
	}
}

// checkTape requires the events of tape to be, item by item and in order, the list route's
// items on the replica and on the primary (ingestion stopped, both at the same height), with
// ids strictly increasing (blocks: the height) and the stream never ended by the server.
func checkTape(t *testing.T, tape *streamTape, replica, ref, list, key string) int {
	t.Helper()
	want := listAll(t, replica, list, key)
	if ref != "" {
		if p := listAll(t, ref, list, key); !slices.Equal(p, want) {
			t.Errorf("%s: the replica's %d items differ from the primary's %d", list, len(want), len(p))
		}
	}
	evs, ends := tape.snapshot()
	for _, err := range ends {
		t.Errorf("%s: a connection ended before the test cut it: %v", tape.url, err)
	}
	var prev int64 = -1
	for i, ev := range evs {
		id, err := strconv.ParseInt(ev.ID, 10, 64)
		if err != nil || id <= prev || ev.Name != tape.event {
			t.Errorf("%s: event %d is %q id %q after id %d, want %q events with increasing ids", tape.url, i, ev.Name, ev.ID, prev, tape.event)
			return 0
		}
		if key == "blocks" && i > 0 && id != prev+1 {
			t.Errorf("%s: event %d has id %d after %d: a gap between heights", tape.url, i, id, prev)
			return 0
		}
		prev = id
	}
	if len(evs) != len(want) {
		t.Errorf("%s: %d events, the list route has %d items", tape.url, len(evs), len(want))
		return 0
	}
	for i := range evs {
		if string(evs[i].Data) != want[i] {
			t.Errorf("%s: event %d (id %s) differs from the list's item:\n  event %.300s\n  item  %.300s", tape.url, i, evs[i].ID, evs[i].Data, want[i])
			return 0
		}
	}
	return len(evs)
}
