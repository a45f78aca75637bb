package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// heldBy counts the unfinished transfers each replica holds a lease on.
func heldBy(t *testing.T, dsn string) map[string]int {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT owner, count(*) FROM track_transfer WHERE terminal = 0 GROUP BY owner")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for rows.Next() {
		var o string
		var n int
		if err := rows.Scan(&o, &n); err != nil {
			t.Fatal(err)
		}
		out[o] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// secondRouter is another router HTTP server on the same tracking database, as a second
// `rollgate router` replica behind a load balancer would be.
func secondRouter(t *testing.T, n *trackNet, dsn string) string {
	t.Helper()
	st, err := track.OpenStore(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	live := registry.NewLive(n.reg)
	tr := track.New(st, live, track.Config{Owner: "second-router"})
	srv := httptest.NewServer(api.New(api.Config{Balances: &registry.RESTBalances{}, Tracker: tr}, live, nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	return srv.URL
}

// sameStatus requires /v2/tx/status of every flight to answer 200 with the same body from
// both routers.
func sameStatus(t *testing.T, a, b string, fs []flight) {
	t.Helper()
	read := func(base string, f flight) []byte {
		resp, err := http.Get(base + "/v2/tx/status?" + url.Values{"chain_id": {f.chainID}, "tx_hash": {f.hash}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s status of %s: %d %s", base, f.hash, resp.StatusCode, body)
		}
		return body
	}
	for _, f := range fs {
		if x, y := read(a, f), read(b, f); !bytes.Equal(x, y) {
			t.Errorf("/v2/tx/status of %s differs between the routers:\n  %s\n  %s", f.hash, x, y)
		}
	}
}

// TestTrackReplicaKilled runs two tracker processes (router replicas) on one PostgreSQL
// tracking database, SIGKILLs the one holding the most in-flight transfers, and requires the
// other to take every one of them over once the dead one's leases lapse (Lease: 2 s in the
// child), and every transfer to reach its correct terminal state with exactly one hop
// reported; /v2/tx/status answers the same from two router HTTP servers on the database, in
// flight and at the end. The hand-over time is logged for docs/operations.md.
func TestTrackReplicaKilled(t *testing.T) {
	dsn := testutil.PostgresDSN(t)
	n := startTrackNet(t, dsn)
	n.t = t
	fs := n.fleet(60)
	// Registered through a router replica that does not track (its leases lapse at once), so
	// the two tracker processes claim them.
	front := track.New(n.st, registry.NewLive(n.reg), track.Config{Lease: time.Nanosecond})
	for _, f := range fs {
		if _, err := front.Track(n.ctx, f.chainID, f.hash); err != nil {
			t.Fatal(err)
		}
	}
	procs := map[string]interface{ Kill() error }{}
	for _, owner := range []string{"a", "b"} {
		procs[owner] = startChild(t, n.tn.dir, dsn, owner).Process
	}
	n.broadcastAll(fs)
	if err := n.tn.step(n.ctx); err != nil { // the sends land
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for states(t, n.st, fs)[track.StatePending] < len(fs) {
		if time.Now().After(deadline) {
			t.Fatalf("the trackers did not pick the transfers up: %v", states(t, n.st, fs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	second := secondRouter(t, n, dsn)
	sameStatus(t, n.router, second, fs) // in flight: the chains do not move meanwhile
	held := heldBy(t, dsn)
	victim, other := "a", "b"
	if held["b"] > held["a"] {
		victim, other = "b", "a"
	}
	if held[victim] == 0 {
		t.Fatalf("no replica holds a lease on the in-flight transfers: %v", held)
	}
	if err := procs[victim].Kill(); err != nil { // SIGKILL: no lease released
		t.Fatal(err)
	}
	killed := time.Now()
	t.Logf("killed %s holding %d in-flight transfers (leases held: %v)", victim, held[victim], held)

	// The chains move on; the survivor must claim the dead replica's transfers.
	deadline = time.Now().Add(60 * time.Second)
	for {
		h := heldBy(t, dsn)
		if h[victim] == 0 {
			t.Logf("%s took over %s's transfers %v after the kill (leases held now: %v)", other, victim, time.Since(killed).Round(time.Millisecond), h)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d transfers still leased to the dead replica %s after 60 s", h[victim], victim)
		}
		if err := n.tn.step(n.ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	n.settle(n.st, fs, 100*time.Millisecond, 60*time.Second)
	t.Logf("after the kill: %v", states(t, n.st, fs))
	sameStatus(t, n.router, second, fs)
}
