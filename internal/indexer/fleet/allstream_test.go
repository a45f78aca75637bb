package fleet_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/testutil"
)

// allStream is an open cross-rollup stream.
type allStream struct{ *testutil.SSEClient }

func openAll(t *testing.T, u, lastID string) *allStream {
	t.Helper()
	return &allStream{testutil.OpenSSE(t, u, lastID)}
}

// read reads n events, or as many as come within wait when n < 0 (then the stream is
// closed), failing when n events do not come within a minute.
func (s *allStream) read(t *testing.T, n int, wait time.Duration) []sse.Event {
	t.Helper()
	if n < 0 {
		cut := time.AfterFunc(wait, func() { s.Resp.Body.Close() })
		defer cut.Stop()
	} else {
		cut := time.AfterFunc(time.Minute, func() { s.Resp.Body.Close() })
		defer cut.Stop()
	}
	var out []sse.Event
	for n < 0 || len(out) < n {
		ev, err := s.R.Next()
		if err != nil {
			if n >= 0 {
				t.Fatalf("after %d of %d events: %v", len(out), n, err)
			}
			return out
		}
		if ev.Name == "error" {
			t.Fatalf("error event %s", ev.Data)
		}
		out = append(out, ev)
	}
	return out
}

// rest reads the events until the server ends the stream, at most for wait.
func (s *allStream) rest(wait time.Duration) []sse.Event {
	cut := time.AfterFunc(wait, func() { s.Resp.Body.Close() })
	defer cut.Stop()
	return s.Rest()
}

// chainItems is what each chain's own list routes give for the accounts, every item once
// (keyed by its JSON), as "<chain_id> <item>".
func chainItems(t *testing.T, base string, chains []string, path, key string, accs []string) []string {
	t.Helper()
	var out []string
	for _, c := range chains {
		seen := map[string]bool{}
		for _, a := range accs {
			l := map[string]json.RawMessage{}
			st, _, b := get(t, base+"/"+c+path+url.PathEscape(a)+"?pagination.reverse=false&pagination.limit=1000", "")
			if st != 200 || json.Unmarshal(b, &l) != nil {
				t.Fatalf("%s %s: %d %s", c, a, st, b)
			}
			var items []json.RawMessage
			if err := json.Unmarshal(l[key], &items); err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if !seen[string(it)] {
					seen[string(it)] = true
					out = append(out, c+" "+string(it))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestAllStreamsOverTwoRollups: the cross-rollup tx and transfer streams of two accounts (one
// also given in its 0x form) over two captured rollups of a fleet. Replayed from 0 they send
// what each chain's own by_account lists hold for the accounts, each item once with its
// chain_id; the client goes away, both chains advance to their tops, and resuming with the
// last id (the position on both chains) sends exactly the rest: nothing lost, nothing
// repeated. A malformed resume point or account is a 400; a resume point whose part for one
// chain is of an epoch its store is not at ends the stream with CHAIN_RESET naming the chain.
func TestAllStreamsOverTwoRollups(t *testing.T) {
	caps := capturedChains(t)
	var ups []*moving
	var specs []fleet.Chain
	var ids []string
	for _, c := range []*captured{caps[0], caps[2]} { // EVM and Wasm
		m := serveMoving(t, c, "", c.top/2)
		ups, specs, ids = append(ups, m), append(specs, m.spec()), append(ids, m.id)
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, specs...)
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest()})
	for _, u := range ups {
		waitHeight(t, srv.URL+"/"+u.id, u.tip.Load(), time.Minute)
	}
	// account, and the counterpart of its first transfer on the EVM rollup.
	_, _, b := get(t, srv.URL+"/"+ids[0]+"/indexer/transfer/v1/transfers/by_account/"+account+"?pagination.reverse=false&pagination.limit=1", "")
	var first struct {
		Transfers []struct{ From, To *string } `json:"transfers"`
	}
	if err := json.Unmarshal(b, &first); err != nil || len(first.Transfers) == 0 || first.Transfers[0].From == nil || first.Transfers[0].To == nil {
		t.Fatalf("no transfer of %s on %s: %s", account, ids[0], b)
	}
	other := *first.Transfers[0].To
	if strings.EqualFold(other, *first.Transfers[0].From) || !strings.HasPrefix(other, "0x") {
		other = *first.Transfers[0].From
	}
	accs := []string{account, other}
	q := url.Values{"account": {account, other, strings.ToUpper(other[2:])}}
	kinds := []struct{ path, list, key, event string }{
		{"/all/indexer/tx/v1/txs/stream", "/indexer/tx/v1/txs/by_account/", "txs", "tx"},
		{"/all/indexer/transfer/v1/transfers/stream", "/indexer/transfer/v1/transfers/by_account/", "transfers", "transfer"},
	}
	got := func(event string, evs []sse.Event) []string {
		var out []string
		for _, ev := range evs {
			if ev.Name != event {
				t.Fatalf("event %s, want %s", ev.Name, event)
			}
			var id struct {
				ChainID string `json:"chain_id"`
			}
			if err := json.Unmarshal(ev.Data, &id); err != nil || !slices.Contains(ids, id.ChainID) {
				t.Fatalf("event without a chain of the fleet: %.200s", ev.Data)
			}
			out = append(out, id.ChainID+" "+string(withoutChainID(t, ev.Data)))
		}
		return out
	}
	// Both streams replay from 0 at mid-chain, then the client goes away.
	before := make([][]sse.Event, len(kinds))
	mids := make([]int, len(kinds))
	for k, c := range kinds {
		mid := chainItems(t, srv.URL, ids, c.list, c.key, accs)
		s := openAll(t, srv.URL+c.path+"?"+q.Encode(), "0")
		before[k], mids[k] = s.read(t, len(mid), 0), len(mid)
		last := before[k][len(before[k])-1].ID
		for _, id := range ids {
			if !strings.Contains(last, id+"=") {
				t.Fatalf("id %q does not name chain %s", last, id)
			}
		}
		s.Resp.Body.Close()
	}
	// Both chains advance to their tops while it is away.
	for _, u := range ups {
		u.tip.Store(u.top)
	}
	for _, u := range ups {
		waitHeight(t, srv.URL+"/"+u.id, u.top, time.Minute)
	}
	for k, c := range kinds {
		all := chainItems(t, srv.URL, ids, c.list, c.key, accs)
		last := before[k][len(before[k])-1].ID
		s := openAll(t, srv.URL+c.path+"?"+q.Encode(), last)
		rest := s.read(t, len(all)-mids[k], 0)
		extra := s.read(t, -1, 500*time.Millisecond) // nothing more is owed
		g := append(got(c.event, before[k]), got(c.event, rest)...)
		g = append(g, got(c.event, extra)...)
		sorted := slices.Clone(g)
		slices.Sort(sorted)
		if !slices.Equal(sorted, all) {
			t.Fatalf("%s: %d events, the chains' lists hold %d items (%d at the first connection)\ngot  %v\nwant %v", c.event, len(g), len(all), mids[k], sorted, all)
		}
		if len(rest) == 0 {
			t.Fatalf("%s: nothing indexed while the client was away: the resume is not tested", c.event)
		}
		per := map[string]int{}
		for _, it := range g {
			per[strings.Fields(it)[0]]++
		}
		t.Logf("%s: %d events (%v), %d before the disconnect (last id %s), %d after (last id %s)", c.event, len(g), per, len(before[k]), last, len(rest), rest[len(rest)-1].ID)
	}
	for _, c := range []struct{ name, query, lastID, want string }{
		{"no account", "", "", "account is required"},
		{"bad account", "account=xyz", "", "invalid value for account"},
		{"bad resume point", "account=" + account, ids[0] + "=x", "resume point"},
		{"another epoch on one chain", "account=" + account, ids[0] + "=3:5," + ids[1] + "=1", "CHAIN_RESET"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/all/indexer/tx/v1/txs/stream?"+c.query, nil)
			if c.lastID != "" {
				req.Header.Set("Last-Event-ID", c.lastID)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if c.want == "CHAIN_RESET" {
				// An id of an epoch the chain's store is not at: the stream's one event is the
				// error, naming the chain.
				if resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
				evs := (&allStream{&testutil.SSEClient{Resp: resp, R: sse.NewReader(resp.Body)}}).rest(5 * time.Second)
				if len(evs) != 1 || evs[0].Name != "error" || !strings.Contains(string(evs[0].Data), c.want) || !strings.Contains(string(evs[0].Data), "chain "+ids[0]) {
					t.Errorf("events %v, want one CHAIN_RESET error naming %s", evs, ids[0])
				}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 400 || !strings.Contains(string(b), c.want) {
				t.Errorf("%d %s, want a 400 with %q", resp.StatusCode, b, c.want)
			}
		})
	}
}
