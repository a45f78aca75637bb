package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// flaky answers with the scripted behaviours in order, then with a valid JSON body.
func flaky(t *testing.T, script []string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		step := "ok"
		if i < len(script) {
			step = script[i]
		}
		switch step {
		case "500":
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		case "429":
			w.WriteHeader(http.StatusTooManyRequests)
		case "400":
			http.Error(w, `{"code":3,"message":"bad"}`, http.StatusBadRequest)
		case "close":
			hj, _ := w.(http.Hijacker)
			conn, _, err := hj.Hijack()
			if err == nil {
				conn.Close()
			}
		case "truncated": // claims more bytes than it sends, then drops the connection
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"result":{"he`))
			w.(http.Flusher).Flush()
			hj, _ := w.(http.Hijacker)
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		case "invalid": // complete response, but not JSON
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"result":{"he`))
		case "slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			w.Write([]byte(`{"result":"ok"}`))
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &n
}

func fast(opts ...Option) []Option {
	return append([]Option{WithBackoff(time.Millisecond, 5*time.Millisecond), WithTimeout(300 * time.Millisecond)}, opts...)
}

func TestRetriesUntilSuccess(t *testing.T) {
	tests := []struct {
		name   string
		script []string
	}{
		{"500", []string{"500", "500"}},
		{"429", []string{"429"}},
		{"closed connection", []string{"close"}},
		{"truncated body", []string{"truncated"}},
		{"invalid json", []string{"invalid"}},
		{"timeout", []string{"slow"}},
		{"mixed", []string{"500", "close", "truncated", "slow", "429", "invalid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := flaky(t, tc.script)
			c, err := New(srv.URL, fast(WithMaxAttempts(10))...)
			if err != nil {
				t.Fatal(err)
			}
			body, err := c.GetJSON(context.Background(), "/x", nil, nil)
			if err != nil {
				t.Fatalf("GetJSON: %v", err)
			}
			if string(body) != `{"result":"ok"}` {
				t.Fatalf("body %q", body)
			}
			if got, want := int(n.Load()), len(tc.script)+1; got != want {
				t.Fatalf("attempts %d, want %d", got, want)
			}
		})
	}
}

func TestNoRetryOn4xx(t *testing.T) {
	srv, n := flaky(t, []string{"400"})
	c, _ := New(srv.URL, fast()...)
	_, err := c.GetJSON(context.Background(), "/x", nil, nil)
	se, ok := AsStatus(err)
	if !ok || se.Status != 400 || string(se.Body) != "{\"code\":3,\"message\":\"bad\"}\n" {
		t.Fatalf("err = %#v", err)
	}
	if n.Load() != 1 {
		t.Fatalf("attempts %d, want 1", n.Load())
	}
}

func TestFinalStopsRetry(t *testing.T) {
	srv, n := flaky(t, []string{"500"})
	c, _ := New(srv.URL, fast()...)
	_, err := c.Do(context.Background(), Request{Path: "/x", Final: func(int, []byte) bool { return true }})
	if se, ok := AsStatus(err); !ok || se.Status != 500 {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 1 {
		t.Fatalf("attempts %d, want 1", n.Load())
	}
}

func TestBoundedAttempts(t *testing.T) {
	srv, n := flaky(t, []string{"close", "close", "close", "close"})
	// Counts requests exactly: no hedged copy (a cold client hedges after timeout/10, 30 ms
	// here, which a loaded machine can exceed).
	c, _ := New(srv.URL, fast(WithMaxAttempts(3), WithoutAdaptation())...)
	_, err := c.GetJSON(context.Background(), "/x", nil, nil)
	if !IsUnreachable(err) {
		t.Fatalf("err = %v, want unreachable", err)
	}
	if n.Load() != 3 {
		t.Fatalf("attempts %d, want 3", n.Load())
	}

	srv2, _ := flaky(t, []string{"500", "500", "500"})
	c2, _ := New(srv2.URL, fast(WithMaxAttempts(2))...)
	_, err = c2.GetJSON(context.Background(), "/x", nil, nil)
	if se, ok := AsStatus(err); !ok || se.Status != 500 {
		t.Fatalf("err = %v, want the last 500", err)
	}
}

func TestUnboundedStopsWithContext(t *testing.T) {
	srv, _ := flaky(t, []string{"500", "500", "500", "500", "500", "500", "500", "500", "500", "500", "500", "500"})
	var attempts atomic.Int32
	c, _ := New(srv.URL, fast(WithMaxAttempts(0), WithHooks(Hooks{OnAttempt: func(Attempt) { attempts.Add(1) }}))...)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for attempts.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.GetJSON(ctx, "/x", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRotationFromDeadURL(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	live, n := flaky(t, nil)
	c, err := New(deadURL+" , "+live.URL, fast()...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.GetJSON(context.Background(), "/x", nil, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// After the first failure the client stays on the live URL.
	if n.Load() != 3 {
		t.Fatalf("live server saw %d calls, want 3", n.Load())
	}
	if eps := c.Endpoints(); len(eps) != 2 {
		t.Fatalf("endpoints %v", eps)
	}
}

func TestLimiterBoundsConcurrency(t *testing.T) {
	var cur, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := cur.Add(1)
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		cur.Add(-1)
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	lim := NewLimiter(2)
	a, _ := New(srv.URL, fast(WithLimiter(lim))...)
	b, _ := New(srv.URL, fast(WithLimiter(lim))...)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		c := a
		if i%2 == 1 {
			c = b
		}
		go func() {
			defer wg.Done()
			if _, err := c.GetJSON(context.Background(), "/x", nil, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Fatalf("peak concurrency %d > 2", peak.Load())
	}
}

func TestPathAndQuery(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RequestURI() + " h=" + r.Header.Get("x-cosmos-block-height")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, _ := New(srv.URL+"/base/", fast()...)
	hdr := http.Header{}
	hdr.Set("x-cosmos-block-height", "7")
	if _, err := c.GetJSON(context.Background(), "/a/factory%2Fx?p=1", map[string][]string{"k": {"v w"}}, hdr); err != nil {
		t.Fatal(err)
	}
	if want := "/base/a/factory%2Fx?p=1&k=v+w h=7"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestNewRejectsBadEndpoints(t *testing.T) {
	for _, e := range []string{"", " , ", "ftp://x", "://bad"} {
		if _, err := New(e); err == nil {
			t.Errorf("New(%q) succeeded", e)
		}
	}
}

func TestPrometheusHooks(t *testing.T) {
	reg := prometheus.NewRegistry()
	hooks, err := PrometheusHooks(reg, "rollgate", "rest")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PrometheusHooks(reg, "rollgate", "comet"); err != nil {
		t.Fatalf("second registration: %v", err)
	}
	srv, _ := flaky(t, []string{"500"})
	c, _ := New(srv.URL, fast(WithHooks(hooks))...)
	if _, err := c.GetJSON(context.Background(), "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "rollgate_upstream_attempts_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" {
					got[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	if got["500"] != 1 || got["200"] != 1 {
		t.Fatalf("attempt counters %v", got)
	}
}

// TestSubLimiterSharesBudget: chains share one budget through Sub limiters; a chain whose
// node hangs holds at most its own cap of the budget, so another chain still gets answers.
func TestSubLimiterSharesBudget(t *testing.T) {
	hang := make(chan struct{})
	var hung atomic.Int32
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung.Add(1)
		<-hang
		w.Write([]byte(`{}`))
	}))
	defer stuck.Close()
	defer close(hang)
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }))
	defer ok.Close()
	budget := NewLimiter(3)
	a, _ := New(stuck.URL, fast(WithLimiter(budget.Sub(2)), WithTimeout(time.Minute))...)
	b, _ := New(ok.URL, fast(WithLimiter(budget.Sub(2)))...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = a.GetJSON(ctx, "/x", nil, nil) }()
	}
	for deadline := time.Now().Add(5 * time.Second); hung.Load() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests reached the hanging node, want 2", hung.Load())
		}
		time.Sleep(time.Millisecond)
	}
	for range 4 {
		c, cancelB := context.WithTimeout(context.Background(), 2*time.Second)
		if _, err := b.GetJSON(c, "/x", nil, nil); err != nil {
			t.Fatalf("the healthy chain starved: %v", err)
		}
		cancelB()
	}
	if n := hung.Load(); n != 2 {
		t.Fatalf("%d requests in flight at the hanging node, want its cap 2", n)
	}
	cancel()
	wg.Wait()
	if nil == (*Limiter)(nil).Sub(1) || NewLimiter(1).Sub(0) == nil {
		t.Fatal("Sub of a nil limiter or with no cap must still limit")
	}
}
