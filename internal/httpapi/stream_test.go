package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi/sse"
)

// counter is a producer that sends events 1..n (n 0: forever, one each tick), then ends.
func counter(n int, tick time.Duration) Opener {
	return func(r *http.Request) (Producer, error) {
		start := 0
		if v := LastEventID(r); v != "" {
			var err error
			if start, err = strconv.Atoi(v); err != nil {
				return nil, apierr.BadRequest("bad resume point %q", v)
			}
		}
		return func(st *Stream) error {
			for i := start + 1; n == 0 || i <= n; i++ {
				if err := st.Send(strconv.Itoa(i), "tick", []byte(`{"i":`+strconv.Itoa(i)+"}")); err != nil {
					return err
				}
				if tick > 0 {
					select {
					case <-time.After(tick):
					case <-st.Context().Done():
						return nil
					}
				}
			}
			return nil
		}, nil
	}
}

func streamAPI(t *testing.T, so StreamOptions, reg *prometheus.Registry) http.Handler {
	t.Helper()
	return New(Options{Namespace: "test_api", Registry: reg, Streams: so, CORS: CORS{Enabled: true, AllowOrigins: []string{"*"}}}, []Route{
		{Pattern: "GET /three", Stream: counter(3, 0)},
		{Pattern: "GET /forever", Stream: counter(0, 20*time.Millisecond)},
		{Pattern: "GET /fail", Stream: func(*http.Request) (Producer, error) {
			return func(st *Stream) error {
				if err := st.Send("1", "", []byte(`{}`)); err != nil {
					return err
				}
				return apierr.NotFoundf("resume point is gone")
			}, nil
		}},
	})
}

func open(t *testing.T, url string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://app.example")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, body io.Reader) []sse.Event {
	t.Helper()
	var out []sse.Event
	rd := sse.NewReader(body)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

func TestStreamFraming(t *testing.T) {
	srv := httptest.NewServer(streamAPI(t, StreamOptions{}, nil))
	t.Cleanup(srv.Close) // after the streams' bodies are closed (cleanups run last first)
	tests := []struct {
		name, path string
		header     http.Header
		want       []string // "name id data"
	}{
		{"all", "/three", nil, []string{"tick 1 {\"i\":1}", "tick 2 {\"i\":2}", "tick 3 {\"i\":3}"}},
		{"Last-Event-ID", "/three", http.Header{"Last-Event-Id": {"1"}}, []string{"tick 2 {\"i\":2}", "tick 3 {\"i\":3}"}},
		{"from", "/three?from=2", nil, []string{"tick 3 {\"i\":3}"}},
		{"error event", "/fail", nil, []string{`message 1 {}`, `error 1 {"code":5,"message":"resume point is gone","details":[]}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := open(t, srv.URL+tc.path, tc.header) //nolint:bodyclose // open closes it in t.Cleanup
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("CORS header %q", got)
			}
			var got []string
			for _, ev := range readAll(t, resp.Body) {
				got = append(got, ev.Name+" "+ev.ID+" "+string(ev.Data))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	// A bad resume point is the API's JSON 400, before any stream.
	resp := open(t, srv.URL+"/three?from=x", nil) //nolint:bodyclose // open closes it in t.Cleanup
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), `"code":3`) {
		t.Errorf("bad from: %d %s", resp.StatusCode, b)
	}
}

func TestStreamHeartbeatAndWriteTimeout(t *testing.T) {
	srv := httptest.NewUnstartedServer(streamAPI(t, StreamOptions{Heartbeat: 30 * time.Millisecond}, nil))
	// The stream outlives the server's WriteTimeout: it must not be cut.
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)                     // after the streams' bodies are closed (cleanups run last first)
	resp := open(t, srv.URL+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
	rd := sse.NewReader(resp.Body)
	deadline := time.Now().Add(400 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		ev, err := rd.Next()
		if err != nil {
			t.Fatalf("after %d events: %v", n, err)
		}
		n++
		if ev.ID != strconv.Itoa(n) {
			t.Fatalf("event %d has id %s", n, ev.ID)
		}
	}
	if n < 10 {
		t.Errorf("only %d events in 400 ms", n)
	}
}

func TestStreamHeartbeatComment(t *testing.T) {
	h := New(Options{Streams: StreamOptions{Heartbeat: 20 * time.Millisecond}}, []Route{
		{Pattern: "GET /idle", Stream: func(*http.Request) (Producer, error) {
			return func(st *Stream) error { <-st.Context().Done(); return nil }, nil
		}},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)                  // after the streams' bodies are closed (cleanups run last first)
	resp := open(t, srv.URL+"/idle", nil) //nolint:bodyclose // open closes it in t.Cleanup
	buf := make([]byte, 0, 256)
	tmp := make([]byte, 256)
	for !strings.Contains(string(buf), ": heartbeat\n\n: heartbeat\n\n") {
		n, err := resp.Body.Read(tmp)
		if err != nil {
			t.Fatalf("read: %v (got %q)", err, buf)
		}
		buf = append(buf, tmp[:n]...)
	}
	if !strings.HasPrefix(string(buf), ": ok\n\n") {
		t.Errorf("stream starts %q", buf)
	}
}

func TestStreamCaps(t *testing.T) {
	reg := prometheus.NewRegistry()
	tests := []struct {
		name string
		so   StreamOptions
	}{
		{"process", StreamOptions{MaxSubscribers: 2, RetryAfter: 7 * time.Second}},
		{"per IP", StreamOptions{MaxPerIP: 2, RetryAfter: 7 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(streamAPI(t, tc.so, reg))
			t.Cleanup(srv.Close) // after the streams' bodies are closed (cleanups run last first)
			for range 2 {
				if r := open(t, srv.URL+"/forever", nil); r.StatusCode != 200 { //nolint:bodyclose // open closes it in t.Cleanup
					t.Fatalf("status %d", r.StatusCode)
				}
			}
			resp := open(t, srv.URL+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(b), "TOO_MANY_STREAMS") {
				t.Fatalf("past the cap: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
			}
		})
	}
	if n := drops(t, reg, "cap"); n != 1 {
		t.Errorf("cap drops %v", n)
	}
	if n := drops(t, reg, "ip_cap"); n != 1 {
		t.Errorf("ip_cap drops %v", n)
	}
}

// TestStreamCapsShared: two APIs (two listeners of one process, as under `rollgate up`) given
// one StreamCaps count a client's streams together; without it each counts its own.
func TestStreamCapsShared(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared", false: "separate"}[shared], func(t *testing.T) {
			so := StreamOptions{MaxPerIP: 2}
			if shared {
				so.Caps = NewStreamCaps(0, 2)
			}
			a := httptest.NewServer(streamAPI(t, so, prometheus.NewRegistry()))
			t.Cleanup(a.Close)
			b := httptest.NewServer(streamAPI(t, so, prometheus.NewRegistry()))
			t.Cleanup(b.Close)
			for _, u := range []string{a.URL, b.URL} {
				if r := open(t, u+"/forever", nil); r.StatusCode != 200 { //nolint:bodyclose // open closes it in t.Cleanup
					t.Fatalf("status %d", r.StatusCode)
				}
			}
			resp := open(t, b.URL+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
			if refused := resp.StatusCode == 503; refused != shared {
				t.Errorf("third stream of one address over two APIs: %d (shared caps: %v)", resp.StatusCode, shared)
			}
		})
	}
}

// drops reads test_api_stream_drops_total{reason} from reg.
func drops(t *testing.T, reg *prometheus.Registry, reason string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "test_api_stream_drops_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelIs(m, "reason", reason) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// gated holds writes of the response once open is closed... until release: a client that
// stops reading, without depending on the kernel's socket buffers.
type gated struct {
	http.ResponseWriter
	mu      sync.Mutex
	writes  int
	blockAt int
	release chan struct{}
}

func (g *gated) Write(b []byte) (int, error) {
	g.mu.Lock()
	g.writes++
	n := g.writes
	g.mu.Unlock()
	if n == g.blockAt {
		<-g.release
	}
	return g.ResponseWriter.Write(b)
}

func (g *gated) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func TestStreamSlowClientDropped(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := New(Options{Namespace: "test_api", Registry: reg, Streams: StreamOptions{Buffer: 2, SlowAfter: 50 * time.Millisecond}},
		[]Route{{Pattern: "GET /many", Stream: counter(1000, 0)}})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Write 1 is the ": ok" comment, 2 event 1, 3 event 2: that one waits.
		h.ServeHTTP(&gated{ResponseWriter: w, blockAt: 3, release: release}, r)
	}))
	t.Cleanup(srv.Close)                  // after the streams' bodies are closed (cleanups run last first)
	resp := open(t, srv.URL+"/many", nil) //nolint:bodyclose // open closes it in t.Cleanup
	time.Sleep(time.Second)               // the producer fills the queue and gives up after 50 ms, even on a busy machine
	close(release)
	var got []string
	for _, ev := range readAll(t, resp.Body) {
		got = append(got, ev.Name+" "+ev.ID+" "+string(ev.Data))
	}
	want := []string{`tick 1 {"i":1}`, `tick 2 {"i":2}`, `reconnect 2 {"reason":"slow client","last_event_id":"2"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := drops(t, reg, "slow"); n != 1 {
		t.Errorf("slow drops %v", n)
	}
	// It resumes where the reconnect event says, without loss.
	resp = open(t, srv.URL+"/many", http.Header{"Last-Event-Id": {"2"}}) //nolint:bodyclose // open closes it in t.Cleanup
	rd := sse.NewReader(resp.Body)
	ev, err := rd.Next()
	if err != nil || ev.ID != "3" {
		t.Fatalf("resumed with %+v, %v", ev, err)
	}
}

func TestStreamShutdown(t *testing.T) {
	srv := httptest.NewServer(streamAPI(t, StreamOptions{}, nil))
	t.Cleanup(srv.Close)                     // after the streams' bodies are closed (cleanups run last first)
	resp := open(t, srv.URL+"/forever", nil) //nolint:bodyclose // open closes it in t.Cleanup
	rd := sse.NewReader(resp.Body)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with an open stream: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	checkShutdownEvent(t, rd)
}

// checkShutdownEvent reads rd to its end and checks that the stream's last event told the
// client to reconnect, the server shutting down, with its resume point.
func checkShutdownEvent(t *testing.T, rd *sse.Reader) {
	t.Helper()
	var last sse.Event
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		last = ev
	}
	if last.Name != "reconnect" || !strings.Contains(string(last.Data), "shutting down") || last.ID == "" {
		t.Errorf("last event %+v", last)
	}
}
