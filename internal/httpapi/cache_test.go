package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// cachedAPI serves a pinned item per id and a list that depends on the version, counting
// handler runs.
func cachedAPI(t *testing.T, c *Cache, version *atomic.Int64, calls *atomic.Int64) http.Handler {
	t.Helper()
	return New(Options{Namespace: "cache_test", Cache: c, Version: func(context.Context) (int64, error) { return version.Load(), nil }}, []Route{
		{Pattern: "GET /item/{id}", Cache: true, Handler: func(r *http.Request) (any, error) {
			calls.Add(1)
			return Pinned{Body: Raw(`{"id":"` + r.PathValue("id") + `","pad":"` + strings.Repeat("x", 150) + `"}`)}, nil
		}},
		{Pattern: "GET /list", Cache: true, Handler: func(r *http.Request) (any, error) {
			calls.Add(1)
			return map[string]any{"head": version.Load(), "q": r.URL.Query().Get("q")}, nil
		}},
		{Pattern: "GET /uncached", Handler: func(r *http.Request) (any, error) {
			calls.Add(1)
			return "x", nil
		}},
	})
}

// TestCacheVersions: a pinned answer is computed once; an unpinned one once per version, and
// never served once the version moved; routes not marked Cache always run.
func TestCacheVersions(t *testing.T) {
	var version, calls atomic.Int64
	version.Store(7)
	h := cachedAPI(t, NewCache(1<<20), &version, &calls)
	steps := []struct {
		path      string
		wantBody  string
		wantCalls int64 // handler runs so far
	}{
		{"/item/1", `{"id":"1"`, 1},
		{"/item/1", `{"id":"1"`, 1},
		{"/item/1/", `{"id":"1"`, 1}, // the trailing slash is the same resource
		{"/list?q=a", `{"head":7,"q":"a"}`, 2},
		{"/list?q=a", `{"head":7,"q":"a"}`, 2},
		{"/list?q=b", `{"head":7,"q":"b"}`, 3},
		{"/uncached", `"x"`, 4},
		{"/uncached", `"x"`, 5},
	}
	for i, st := range steps {
		rec := serve(h, "GET", st.path, nil)
		if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), st.wantBody) || calls.Load() != st.wantCalls {
			t.Errorf("step %d %s: %d %q after %d handler runs, want %q after %d", i, st.path, rec.Code, rec.Body, calls.Load(), st.wantBody, st.wantCalls)
		}
	}
	version.Store(8) // a block arrives
	if rec := serve(h, "GET", "/list?q=a", nil); rec.Body.String() != `{"head":8,"q":"a"}`+"\n" || calls.Load() != 6 {
		t.Errorf("after the version moved: %q, %d handler runs", rec.Body, calls.Load())
	}
	if rec := serve(h, "GET", "/item/1", nil); calls.Load() != 6 || rec.Code != 200 {
		t.Errorf("pinned answer recomputed after the version moved (%d runs)", calls.Load())
	}
}

// TestETag: pinned answers carry a strong ETag, from the cache or not, and If-None-Match
// gets a 304 without a body; unpinned answers carry none.
func TestETag(t *testing.T) {
	for _, c := range []*Cache{nil, NewCache(1 << 20)} {
		var version, calls atomic.Int64
		h := cachedAPI(t, c, &version, &calls)
		first := serve(h, "GET", "/item/9", nil)
		etag := first.Header().Get("ETag")
		if !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
			t.Fatalf("cache %v: ETag %q", c != nil, etag)
		}
		for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
			rec := serve(h, "GET", "/item/9", http.Header{"If-None-Match": {inm}})
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 || rec.Header().Get("ETag") != etag {
				t.Errorf("If-None-Match %s: %d %q", inm, rec.Code, rec.Body)
			}
		}
		if rec := serve(h, "GET", "/item/9", http.Header{"If-None-Match": {`"stale"`}}); rec.Code != 200 || rec.Body.String() != first.Body.String() {
			t.Errorf("other ETag: %d", rec.Code)
		}
		if rec := serve(h, "GET", "/item/10", nil); rec.Header().Get("ETag") == etag {
			t.Error("two bodies share an ETag")
		}
		if rec := serve(h, "GET", "/list", nil); rec.Header().Get("ETag") != "" {
			t.Errorf("unpinned answer has ETag %q", rec.Header().Get("ETag"))
		}
	}
}

// TestCacheBound: under a rotating-URL load the cache never holds more than its bound, and
// it keeps serving the recent answers.
func TestCacheBound(t *testing.T) {
	const bound = 8 << 10
	c := NewCache(bound)
	var version, calls atomic.Int64
	h := cachedAPI(t, c, &version, &calls)
	for i := range 2000 {
		serve(h, "GET", fmt.Sprintf("/item/%d", i), nil)
		serve(h, "GET", fmt.Sprintf("/list?q=%d", i), nil)
		if c.Bytes() > bound {
			t.Fatalf("after %d URLs the cache holds %d bytes, bound %d", 2*(i+1), c.Bytes(), bound)
		}
	}
	if c.Len() < 10 {
		t.Errorf("only %d answers kept in %d bytes", c.Len(), bound)
	}
	before := calls.Load()
	serve(h, "GET", "/item/1999", nil)
	serve(h, "GET", "/item/0", nil)
	if calls.Load() != before+1 {
		t.Errorf("recent answer not served from the cache, or the oldest one was (%d runs)", calls.Load()-before)
	}
	// An answer bigger than an eighth of the bound is not cached at all.
	small := NewCache(1000)
	small.put("k", &answer{body: make([]byte, 200)}, 0)
	if small.Len() != 0 {
		t.Error("a large answer was cached")
	}
}

// TestCacheConcurrent: concurrent readers and writers of one cache (run with -race) always get
// the answer of their own URL.
func TestCacheConcurrent(t *testing.T) {
	var version, calls atomic.Int64
	h := cachedAPI(t, NewCache(16<<10), &version, &calls)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				id := fmt.Sprint((g*7 + i) % 97)
				if rec := serve(h, "GET", "/item/"+id, nil); !strings.HasPrefix(rec.Body.String(), `{"id":"`+id+`"`) {
					t.Errorf("/item/%s answered %.40q", id, rec.Body)
					return
				}
				if i%50 == 0 {
					version.Add(1)
				}
				serve(h, "GET", "/list?q="+id, nil)
			}
		})
	}
	wg.Wait()
}

// TestCachePinnedOnly: a CachePinned route keeps its Pinned answers, and runs its handler for
// every other answer even while the version holds (their content follows something else).
func TestCachePinnedOnly(t *testing.T) {
	var version, traced, calls atomic.Int64
	version.Store(7)
	traced.Store(3)
	h := New(Options{Namespace: "cache_pinned_test", Cache: NewCache(1 << 20), Version: func(context.Context) (int64, error) { return version.Load(), nil }}, []Route{
		{Pattern: "GET /traced/{h}", CachePinned: true, Handler: func(r *http.Request) (any, error) {
			calls.Add(1)
			body := map[string]any{"h": r.PathValue("h"), "traced": traced.Load()}
			if r.PathValue("h") <= strconv.FormatInt(traced.Load(), 10) {
				return Pinned{Body: body}, nil
			}
			return body, nil
		}},
	})
	steps := []struct {
		path      string
		traced    int64 // set before the request
		wantBody  string
		wantCalls int64
	}{
		{"/traced/2", 3, `{"h":"2","traced":3}`, 1},
		{"/traced/2", 3, `{"h":"2","traced":3}`, 1}, // pinned: kept
		{"/traced/5", 3, `{"h":"5","traced":3}`, 2},
		{"/traced/5", 4, `{"h":"5","traced":4}`, 3}, // same version, tracing moved: not served from the cache
		{"/traced/5", 5, `{"h":"5","traced":5}`, 4}, // now pinned
		{"/traced/5", 6, `{"h":"5","traced":5}`, 4},
	}
	for i, st := range steps {
		traced.Store(st.traced)
		rec := serve(h, "GET", st.path, nil)
		if rec.Code != 200 || rec.Body.String() != st.wantBody+"\n" || calls.Load() != st.wantCalls {
			t.Errorf("step %d %s: %d %q after %d handler runs, want %q after %d", i, st.path, rec.Code, rec.Body, calls.Load(), st.wantBody, st.wantCalls)
		}
	}
}

// nopWriter is a ResponseWriter that keeps nothing but its header, so that a test counts the
// API's own allocations and not a recorder's.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

// TestCacheHitAllocations: a pinned cache hit builds no key, header value, label or body, and
// is answered before the ServeMux routes the request (whose match of a long path segment
// allocated). maxHitAllocs: 9 before the hit path was trimmed (key, header values, labels,
// timeout context), 1 before hits were answered ahead of the ServeMux.
const maxHitAllocs = 0

func TestCacheHitAllocations(t *testing.T) {
	var version, calls atomic.Int64
	h := cachedAPI(t, NewCache(1<<20), &version, &calls)
	req, err := http.NewRequest(http.MethodGet, "http://x/item/"+strings.Repeat("ab", 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &nopWriter{h: http.Header{}}
	h.ServeHTTP(w, req) // fills the cache
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.h)
		h.ServeHTTP(w, req)
	})
	if calls.Load() != 1 {
		t.Fatalf("handler ran %d times, want once", calls.Load())
	}
	t.Logf("%.1f allocations per pinned cache hit", allocs)
	if allocs > maxHitAllocs {
		t.Fatalf("%.1f allocations per pinned cache hit, want at most %d", allocs, maxHitAllocs)
	}
}

// TestCacheHitBeforeRouting: a cached answer is served before the ServeMux routes the request,
// so its key must name what the ServeMux routes by. An escaped slash is part of one path
// segment ("a%2Fb" is an {id}); the decoded path "a/b" is another route (here none), and a
// second API sharing the cache never serves the first one's answers. Hits are still counted
// per route.
func TestCacheHitBeforeRouting(t *testing.T) {
	var version, calls atomic.Int64
	c := NewCache(1 << 20)
	h := cachedAPI(t, c, &version, &calls)
	other := New(Options{Namespace: "cache_test_other", Cache: c}, []Route{
		{Pattern: "GET /other", Handler: func(*http.Request) (any, error) { return "other", nil }},
	})
	steps := []struct {
		h         http.Handler
		path      string
		wantCode  int
		wantBody  string
		wantCalls int64
	}{
		{h, "/item/a%2Fb", 200, `{"id":"a/b"`, 1},
		{h, "/item/a%2Fb", 200, `{"id":"a/b"`, 1},
		{h, "/item/a/b", 404, `{`, 1},
		{other, "/item/a%2Fb", 404, `{`, 1},
		{h, "/item/a%2fb", 200, `{"id":"a/b"`, 2}, // another spelling: computed again, never wrong
	}
	for i, st := range steps {
		rec := serve(st.h, "GET", st.path, nil)
		if rec.Code != st.wantCode || !strings.HasPrefix(rec.Body.String(), st.wantBody) || calls.Load() != st.wantCalls {
			t.Errorf("step %d %s: %d %q after %d handler runs, want %d %q after %d", i, st.path, rec.Code, rec.Body,
				calls.Load(), st.wantCode, st.wantBody, st.wantCalls)
		}
	}
	metrics := serve(h, "GET", "/metrics", nil).Body.String()
	for _, want := range []string{
		`cache_test_cache_lookups_total{result="hit"} 1`,
		`cache_test_requests_total{code="200",route="GET /item/{id}"} 3`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestVersionNow: a versioned hit takes the version from VersionNow when it knows it (Version
// is not read), and from Version when it does not; an answer of another version is never served.
func TestVersionNow(t *testing.T) {
	var version, reads, calls atomic.Int64
	var known atomic.Bool
	version.Store(3)
	h := New(Options{Namespace: "version_now", Cache: NewCache(1 << 20),
		Version:    func(context.Context) (int64, error) { reads.Add(1); return version.Load(), nil },
		VersionNow: func() (int64, bool) { return version.Load(), known.Load() },
	}, []Route{{Pattern: "GET /list", Cache: true, Handler: func(*http.Request) (any, error) {
		calls.Add(1)
		return map[string]int64{"head": version.Load()}, nil
	}}})
	get := func() string { return serve(h, "GET", "/list", nil).Body.String() }
	get() // the miss: computed at version 3
	for _, known1 := range []bool{true, false} {
		known.Store(known1)
		r0, c0 := reads.Load(), calls.Load()
		if b := get(); b != "{\"head\":3}\n" || calls.Load() != c0 {
			t.Fatalf("known=%v: %q after %d handler runs, want a hit", known1, b, calls.Load()-c0)
		}
		if read := reads.Load() - r0; known1 && read != 0 || !known1 && read != 1 {
			t.Fatalf("known=%v: Version read %d times", known1, read)
		}
	}
	known.Store(true)
	version.Store(4)
	if b := get(); b != "{\"head\":4}\n" {
		t.Fatalf("after the version moved: %q", b)
	}
}

// TestCacheClearDuringAnswer: an answer whose data was read before a Clear (the store was
// dropped while the handler ran) is served to its request but not kept: the next request
// computes it again from what the store holds now.
func TestCacheClearDuringAnswer(t *testing.T) {
	c := NewCache(1 << 20)
	var calls atomic.Int64
	h := New(Options{Namespace: "cache_clear_test", Cache: c}, []Route{
		{Pattern: "GET /item/{id}", Cache: true, Handler: func(r *http.Request) (any, error) {
			if calls.Add(1) == 1 {
				c.Clear() // the data just read is of a store since dropped
			}
			return Pinned{Body: Raw(`{"id":"` + r.PathValue("id") + `"}`)}, nil
		}},
	})
	for i, want := range []int64{1, 2, 2} {
		if rec := serve(h, "GET", "/item/1", nil); rec.Code != 200 || calls.Load() != want {
			t.Fatalf("request %d: %d, %d handler runs, want %d", i+1, rec.Code, calls.Load(), want)
		}
	}
}
