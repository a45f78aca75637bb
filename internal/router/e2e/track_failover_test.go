package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestTrackFailover runs two tracker processes on a tracking database whose DSN names a
// PostgreSQL primary and its streaming hot standby (target_session_attrs=read-write), crashes
// the primary while 60 transfers are in flight, promotes the standby a second later, and
// requires every transfer to finish in its expected terminal state with one hop: the trackers
// and the router's store reconnect to the promoted server by themselves. Commits wait for the
// standby (synchronous_standby_names = '*'), as in the indexer's failover test.
func TestTrackFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two PostgreSQL clusters and crashes one")
	}
	primary, standby := testutil.PGPair(t)
	primary.Configure("synchronous_standby_names = '*'", "synchronous_commit = on")
	primary.Exec("", "CREATE DATABASE track")
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/track?sslmode=disable&target_session_attrs=read-write", primary.Port, standby.Port)
	n := startTrackNet(t, dsn)
	n.t = t
	fs := n.fleet(60)
	front := track.New(n.st, registry.NewLive(n.reg), track.Config{Lease: time.Nanosecond})
	for _, f := range fs {
		if _, err := front.Track(n.ctx, f.chainID, f.hash); err != nil {
			t.Fatal(err)
		}
	}
	for _, owner := range []string{"a", "b"} {
		startChild(t, n.tn.dir, dsn, owner)
	}
	n.broadcastAll(fs)
	if err := n.tn.step(n.ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for states(t, n.st, fs)[track.StatePending] < len(fs) {
		if time.Now().After(deadline) {
			t.Fatalf("the trackers did not pick the transfers up: %v", states(t, n.st, fs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Nothing is terminal yet, and nothing can be before the chains move on (settle steps
	// them): every status change happens on the promoted server.
	primary.Stop("immediate")
	crashed := time.Now()
	time.Sleep(time.Second)
	standby.Promote()
	// The test's own store handle reconnects too: its first reads may meet dead connections.
	deadline = time.Now().Add(60 * time.Second)
	for {
		_, err := n.st.Get(context.Background(), fs[0].chainID, fs[0].hash)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tracking store never answered after the promotion: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.settle(n.st, fs, 100*time.Millisecond, 2*time.Minute)
	t.Logf("every transfer terminal %v after the primary crashed: %v", time.Since(crashed).Round(time.Millisecond), states(t, n.st, fs))
}
