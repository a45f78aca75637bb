package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi/sse"
)

// transportAPI is an API with a response cache (so Serve puts it on fasthttp) and a route of
// every kind: versioned and pinned cached answers, uncached and no-store ones, errors, a body
// with a limit, a stream.
func transportAPI(t testing.TB, version *atomic.Int64, so ...StreamOptions) *server {
	t.Helper()
	routes := []Route{
		{Pattern: "GET /item/{id}", Cache: true, Handler: func(r *http.Request) (any, error) {
			return Pinned{Body: map[string]string{"id": r.PathValue("id")}}, nil
		}},
		{Pattern: "GET /list", Cache: true, Handler: func(r *http.Request) (any, error) {
			return map[string]any{"head": version.Load(), "q": r.URL.Query().Get("q")}, nil
		}},
		{Pattern: "GET /blob", Cache: true, Handler: func(*http.Request) (any, error) {
			return Blob{Body: []byte("plain"), ContentType: "text/plain; charset=utf-8"}, nil
		}},
		{Pattern: "GET /health", NoStore: true, Handler: func(*http.Request) (any, error) { return "ok", nil }},
		{Pattern: "GET /bad", Handler: func(*http.Request) (any, error) { return nil, apierr.BadRequest("bad thing") }},
		{Pattern: "GET /panic", Cache: true, Handler: func(*http.Request) (any, error) { panic("boom") }},
		{Pattern: "POST /submit", NoStore: true, Handler: func(r *http.Request) (any, error) {
			b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 64))
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, apierr.TooLarge(64)
			}
			return map[string]int{"n": len(b)}, err
		}},
		{Pattern: "GET /three", Stream: counter(3, 0)},
		{Pattern: "GET /forever", Stream: counter(0, 20*time.Millisecond)},
	}
	var streams StreamOptions
	if len(so) > 0 {
		streams = so[0]
	}
	h := New(Options{
		Streams:   streams,
		Namespace: "transport_test",
		Cache:     NewCache(1 << 20),
		Version:   func(context.Context) (int64, error) { return version.Load(), nil },
		CORS:      CORS{Enabled: true, AllowOrigins: []string{"https://app.example"}, ExposeHeaders: []string{"X-Total"}},
	}, routes)
	return h.(*server)
}

// start serves h on a fresh listener with the transport given, until the test ends.
func start(t testing.TB, h http.Handler, fast bool) (url string, stop func()) {
	t.Helper()
	return startLogged(t, h, fast, nil)
}

// startLogged is start with the server's log going to log.
func startLogged(t testing.TB, h http.Handler, fast bool, log *slog.Logger) (url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		if fast {
			done <- Serve(ctx, ln, h, log)
		} else {
			done <- serveNetHTTP(ctx, ln, h, log)
		}
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("serve ended with %v", err)
		}
	}
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), stop
}

// TestTransportsAnswerAlike: every kind of request gets the same status, headers and body from
// the API under fasthttp (cached answers written by serveFast, the rest through the adaptor)
// as under net/http, asked twice (a miss, then a hit).
func TestTransportsAnswerAlike(t *testing.T) {
	var version atomic.Int64
	version.Store(5)
	h := transportAPI(t, &version)
	std, _ := start(t, h, false)
	fast, _ := start(t, h, true)
	type req struct {
		method, target, body string
		header               map[string]string
	}
	reqs := []req{
		{method: "GET", target: "/item/1"},
		{method: "GET", target: "/item/1", header: map[string]string{"Origin": "https://app.example"}},
		{method: "GET", target: "/item/1", header: map[string]string{"Origin": "https://evil.example"}},
		{method: "HEAD", target: "/item/2"},
		{method: "GET", target: "/item/3/"},
		{method: "GET", target: "/item/a%2Fb"},
		{method: "GET", target: "/item//4"},
		{method: "GET", target: "/item/./5"},
		{method: "GET", target: "/list?q=a"},
		{method: "GET", target: "/list?q=a&q=b"},
		{method: "GET", target: "/list"},
		{method: "GET", target: "/blob"},
		{method: "GET", target: "/health"},
		{method: "GET", target: "/bad"},
		{method: "GET", target: "/panic"},
		{method: "GET", target: "/nope"},
		{method: "DELETE", target: "/item/1"},
		{method: "OPTIONS", target: "/item/1", header: map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}},
		{method: "POST", target: "/submit", body: `{"a":1}`},
		{method: "POST", target: "/submit", body: strings.Repeat("x", 100)},
		{method: "GET", target: "/three", header: map[string]string{"Origin": "https://app.example"}},
		{method: "GET", target: "/three", header: map[string]string{"Last-Event-ID": "1"}},
		{method: "GET", target: "/three?from=x"},
		{method: "HEAD", target: "/three"},
		{method: "GET", target: "/three/"},
	}
	// The pinned answer's ETag, for a conditional request.
	etag := func() string {
		resp, err := http.Get(std + "/item/1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Etag")
	}()
	reqs = append(reqs, req{method: "GET", target: "/item/1", header: map[string]string{"If-None-Match": etag}})
	do := func(base string, rq req) (int, http.Header, string) {
		var body io.Reader
		if rq.body != "" {
			body = strings.NewReader(rq.body)
		}
		r, err := http.NewRequest(rq.method, base+rq.target, body)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range rq.header {
			r.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(r) // no redirects followed
		if err != nil {
			t.Fatalf("%s %s: %v", rq.method, rq.target, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header, string(b)
	}
	compared := []string{"Content-Type", "Content-Length", "Cache-Control", "Etag", "Vary", "Allow", "Location",
		"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Expose-Headers", "Retry-After", "Server",
		"X-Accel-Buffering", "Transfer-Encoding"}
	for round := range 2 {
		for _, rq := range reqs {
			s1, h1, b1 := do(std, rq)
			s2, h2, b2 := do(fast, rq)
			if s1 != s2 || b1 != b2 {
				t.Errorf("round %d %s %s: net/http %d %q, fasthttp %d %q", round, rq.method, rq.target, s1, b1, s2, b2)
			}
			for _, k := range compared {
				if v1, v2 := strings.Join(h1.Values(k), ","), strings.Join(h2.Values(k), ","); v1 != v2 {
					t.Errorf("round %d %s %s: %s net/http %q, fasthttp %q", round, rq.method, rq.target, k, v1, v2)
				}
			}
		}
	}
}

// TestServeFast: which requests serveFast answers from the cache itself, and that it says no
// (writing nothing) for everything the http.Handler must see.
func TestServeFast(t *testing.T) {
	var version atomic.Int64
	version.Store(5)
	h := transportAPI(t, &version)
	// Fill the cache through the handler, as a first request would.
	for _, target := range []string{"/item/1", "/list?q=a", "/blob", "/health"} {
		if rec := serve(h, "GET", target, nil); rec.Code != 200 {
			t.Fatalf("%s: %d", target, rec.Code)
		}
	}
	ask := func(method, target string) (bool, *fasthttp.RequestCtx) {
		var c fasthttp.RequestCtx
		c.Request.Header.SetMethod(method)
		c.Request.SetRequestURI(target)
		return h.serveFast(&c, c.URI().PathOriginal()), &c
	}
	cases := []struct {
		method, target string
		want           bool
	}{
		{"GET", "/item/1", true},
		{"HEAD", "/item/1", true},
		{"GET", "/list?q=a", true},
		{"GET", "/blob", true},
		{"GET", "/list?q=b", false},   // not cached yet
		{"GET", "/health", false},     // not a cached route
		{"POST", "/item/1", false},    // the wrong method is the ServeMux's 405
		{"GET", "/item/1/", false},    // trailing slash: trimmed by ServeHTTP
		{"GET", "/item//1", false},    // cleaned and redirected by the ServeMux
		{"GET", "/./item/1", false},   // likewise
		{"GET", "/item/%31", false},   // an escape: unescaped by the ServeMux
		{"GET", "/item/1?x=1", false}, // another query is another answer
	}
	for _, c := range cases {
		got, fc := ask(c.method, c.target)
		if got != c.want {
			t.Errorf("%s %s: served %v, want %v", c.method, c.target, got, c.want)
		}
		if !got && (fc.Response.StatusCode() != 200 || len(fc.Response.Body()) != 0 || len(fc.Response.Header.Peek("Cache-Control")) > 0 || len(fc.Response.Header.Peek("Vary")) > 0) {
			t.Errorf("%s %s: declined but wrote %d %q", c.method, c.target, fc.Response.StatusCode(), fc.Response.Body())
		}
		if got && c.method == "GET" && len(fc.Response.Body()) == 0 {
			t.Errorf("%s %s: served an empty body", c.method, c.target)
		}
	}
	// A new height: the list's answer is no longer current, the pinned item still is.
	version.Store(6)
	if got, _ := ask("GET", "/list?q=a"); got {
		t.Error("served a list answer of the previous version")
	}
	if got, _ := ask("GET", "/item/1"); !got {
		t.Error("a pinned answer was not served after the version moved")
	}
}

func TestPlainPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/a": true, "/a/b.c": true, "/a/.well-known": true, "/a/b..c": true,
		"": false, "a": false, "/a/": false, "//a": false, "/a//b": false, "/.": false, "/a/.": false,
		"/a/..": false, "/a/../b": false, "/a/./b": false, "/a%2Fb": false,
	} {
		if got := plainPath([]byte(p)); got != want {
			t.Errorf("plainPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestStreamOverFasthttp: a stream served by fasthttp (through the adaptor) is framed as
// under net/http, and a shutdown ends an open one with a reconnect event, promptly.
func TestStreamOverFasthttp(t *testing.T) {
	var version atomic.Int64
	h := transportAPI(t, &version)
	url, stop := start(t, h, true)
	resp := open(t, url+"/three", nil) //nolint:bodyclose // open closes it in t.Cleanup
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream answered %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readAll(t, resp.Body)
	if len(evs) != 3 || evs[0].ID != "1" || evs[2].ID != "3" || string(evs[1].Data) != `{"i":2}` {
		t.Fatalf("events %+v", evs)
	}
	resp = open(t, url+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
	rd := sse.NewReader(resp.Body)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	ended := make(chan struct{})
	go func() { stop(); close(ended) }()
	checkShutdownEvent(t, rd)
	<-ended
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("shutdown with an open stream took %v", d)
	}
}

// TestStreamCapOverFasthttp: over the cap a stream is refused with the caps' 503 and
// Retry-After, and the slot is free again once the open stream's client goes.
func TestStreamCapOverFasthttp(t *testing.T) {
	var version atomic.Int64
	h := transportAPI(t, &version, StreamOptions{MaxSubscribers: 1, Heartbeat: 50 * time.Millisecond})
	url, _ := start(t, h, true)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/forever", nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sse.NewReader(first.Body).Next(); err != nil {
		t.Fatal(err)
	}
	second := open(t, url+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
	b, _ := io.ReadAll(second.Body)
	if second.StatusCode != http.StatusServiceUnavailable || second.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "TOO_MANY_STREAMS") {
		t.Fatalf("second stream: %d Retry-After %q %s", second.StatusCode, second.Header.Get("Retry-After"), b)
	}
	cancel() // the first client goes; its next write fails (a heartbeat at the latest)
	first.Body.Close()
	deadline := time.Now().Add(3 * time.Second)
	for {
		third := open(t, url+"/three", nil) //nolint:bodyclose // open closes it in t.Cleanup
		if third.StatusCode == http.StatusOK {
			if evs := readAll(t, third.Body); len(evs) != 3 {
				t.Fatalf("events %+v", evs)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot of a client that went was not freed: %d", third.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
