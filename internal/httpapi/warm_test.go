package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWarm: a warmed answer is the one a request computes (same body, headers, version rule),
// the first request for it is a cache hit that runs no handler, an unpinned one is not served
// once the version moves, and warming neither recomputes a current answer nor replaces a newer
// one.
func TestWarm(t *testing.T) {
	var version, calls atomic.Int64
	version.Store(7)
	cold := cachedAPI(t, NewCache(1<<20), &version, &calls)
	warm := cachedAPI(t, NewCache(1<<20), &version, &calls)
	targets := []string{"/item/1", "/list?q=a", "/uncached", "/nowhere", "/item/%zz"}
	res, err := Warm(context.Background(), warm, targets)
	if err != nil || res.Kept != 2 || res.Skipped != 3 || calls.Load() != 2 {
		t.Fatalf("Warm: %+v, %v after %d handler runs; want 2 kept, 3 skipped, 2 runs", res, err, calls.Load())
	}
	for _, p := range []string{"/item/1", "/list?q=a"} {
		before := calls.Load()
		got := serve(warm, "GET", p, nil)
		if calls.Load() != before {
			t.Errorf("%s: the first request after warming ran the handler", p)
		}
		want := serve(cold, "GET", p, nil)
		if got.Code != want.Code || got.Body.String() != want.Body.String() ||
			got.Header().Get("ETag") != want.Header().Get("ETag") || got.Header().Get("Cache-Control") != want.Header().Get("Cache-Control") {
			t.Errorf("%s: warmed %d %q %v, computed %d %q %v", p, got.Code, got.Body, got.Header(), want.Code, want.Body, want.Header())
		}
	}
	if m := serve(warm, "GET", "/metrics", nil).Body.String(); !strings.Contains(m, `cache_test_cache_lookups_total{result="hit"} 2`) ||
		!strings.Contains(m, `cache_test_cache_warms_total{result="kept"} 2`) {
		t.Errorf("metrics after two warmed hits:\n%s", m)
	}
	// Warming again computes nothing: both answers are current.
	before := calls.Load()
	if res, err := Warm(context.Background(), warm, targets[:2]); err != nil || res.Fresh != 2 || calls.Load() != before {
		t.Errorf("warming current answers: %+v, %v, %d handler runs", res, err, calls.Load()-before)
	}
	// The version moves: the warmed list is not served; warming it again gives the new one.
	version.Store(8)
	if rec := serve(warm, "GET", "/list?q=a", nil); rec.Body.String() != `{"head":8,"q":"a"}`+"\n" {
		t.Errorf("after the version moved: %q", rec.Body)
	}
	// A request computed the answer at 8: warming at 8 finds it current.
	if res, _ := Warm(context.Background(), warm, []string{"/list?q=a"}); res.Fresh != 1 {
		t.Errorf("warming an answer a request just computed: %+v", res)
	}
}

// TestWarmNeedsCache: without a cache (or from another handler) Warm keeps nothing and says so.
func TestWarmNeedsCache(t *testing.T) {
	var version, calls atomic.Int64
	h := cachedAPI(t, nil, &version, &calls)
	if res, err := Warm(context.Background(), h, []string{"/item/1"}); err != nil || res.Skipped != 1 || calls.Load() != 0 {
		t.Errorf("no cache: %+v, %v, %d runs", res, err, calls.Load())
	}
	if _, err := Warm(context.Background(), http.NotFoundHandler(), nil); err == nil {
		t.Error("Warm accepted a handler not from New")
	}
}

// TestWarmOfferKeepsNewer: an answer a request computed at a newer version than the warm step's
// stays in the cache.
func TestWarmOfferKeepsNewer(t *testing.T) {
	c := NewCache(1 << 20)
	newer := &answer{body: []byte(`"new"`), version: 9}
	c.put("/list?", newer, 0)
	if c.offer("/list?", &answer{body: []byte(`"old"`), version: 8}, 0) {
		t.Error("an older answer replaced a newer one")
	}
	if a, _ := c.get([]byte("/list?")); a != newer {
		t.Error("the newer answer is gone")
	}
	if !c.offer("/list?", &answer{body: []byte(`"pinned"`), pinned: true}, 0) {
		t.Error("a pinned answer did not replace an unpinned one")
	}
}
