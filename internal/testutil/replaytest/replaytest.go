// Package replaytest serves a captured fixture through internal/chain/replay to a chain
// client under test, for the client packages' tests (comet, cosmosrest, evmrpc).
package replaytest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
)

// Serve starts a replay server over the named fixture and a client of it built by newClient
// with two attempts and a millisecond backoff, so failure paths stay fast. At cleanup, any
// request the capture could not answer fails the test: a client must only ask what the
// real node was asked.
func Serve[C any](t testing.TB, fixture string, newClient func(endpoints string, opts ...httpx.Option) (C, error), opts ...replay.Option) (*replay.Server, C) {
	t.Helper()
	rs, err := replay.New(testutil.Fixture(t, fixture), opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	c, err := newClient(srv.URL, httpx.WithMaxAttempts(2), httpx.WithBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if m := rs.Misses(); len(m) > 0 {
			t.Errorf("replay misses: %v", m)
		}
	})
	return rs, c
}
