package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// rawExchange writes req on a fresh connection to addr ("host:port") and reads one response.
func rawExchange(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.80q: %v", req, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%.80q: body: %v", req, err)
	}
	return resp, b
}

// errorEnvelope checks b is the API's JSON error body and returns its details.
func errorEnvelope(t *testing.T, what string, resp *http.Response, b []byte) []string {
	t.Helper()
	var e struct {
		Code    *int     `json:"code"`
		Message *string  `json:"message"`
		Details []string `json:"details"`
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q: %q", what, ct, b)
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Code == nil || e.Message == nil || e.Details == nil {
		t.Errorf("%s: %d, not the error envelope: %q", what, resp.StatusCode, b)
	}
	return e.Details
}

// TestTransportsRejectAsJSON: what either transport refuses before routing (a malformed
// escape in any path, a request line that does not parse, a header block over the limit, a
// body over fasthttp's bound, a transfer coding neither reads) is the JSON error body with a
// 4xx, the same on both, counted in requests_total under "rejected"; a header block just
// under the limit is served.
func TestTransportsRejectAsJSON(t *testing.T) {
	var version atomic.Int64
	host := "Host: api.test\r\n"
	cases := []struct {
		name, req string
		status    int
		detail    string
		fastOnly  bool // net/http has no bound of its own: the route reads what it takes
	}{
		{"escape in a route's path", "GET /item/%zz HTTP/1.1\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"escape in an unknown path", "GET /nope%zz/status HTTP/1.1\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"escape in a cached route's path", "GET /list%zz HTTP/1.1\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"escape in a stream's path", "GET /three%g HTTP/1.1\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"truncated escape", "GET /item/% HTTP/1.1\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"request line", "NONSENSE\r\n" + host + "\r\n", 400, "MALFORMED_REQUEST", false},
		{"header block over the limit", "GET /item/1 HTTP/1.1\r\n" + host + "X-Pad: " + strings.Repeat("a", maxHeaderBytes) + "\r\n\r\n", 431, "HEADERS_TOO_LARGE", false},
		{"query over the limit", "GET /list?q=" + strings.Repeat("a", maxHeaderBytes) + " HTTP/1.1\r\n" + host + "\r\n", 431, "HEADERS_TOO_LARGE", false},
		{"transfer coding", "POST /submit HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\n\r\n", 400, "MALFORMED_REQUEST", false},
		{"body over the transport's bound", "POST /submit HTTP/1.1\r\n" + host + "Content-Length: " + strconv.Itoa(maxAdaptedBody+1) + "\r\n\r\n", 413, "BODY_TOO_LARGE", true},
		// What a route answers itself stays its answer.
		{"route's own limit", "POST /submit HTTP/1.1\r\n" + host + "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 100), 413, "", false},
		{"method", "DELETE /item/1 HTTP/1.1\r\n" + host + "\r\n", 405, "METHOD_NOT_ALLOWED", false},
		{"query just under the limit", "GET /list?q=" + strings.Repeat("a", maxHeaderBytes-200) + " HTTP/1.1\r\n" + host + "\r\n", 200, "", false},
	}
	for _, fast := range []bool{false, true} {
		name := map[bool]string{false: "net/http", true: "fasthttp"}[fast]
		t.Run(name, func(t *testing.T) {
			h := transportAPI(t, &version)
			logs := &records{}
			u, _ := startLogged(t, h, fast, slog.New(logs))
			addr := strings.TrimPrefix(u, "http://")
			want := map[int]float64{}
			for _, tc := range cases {
				if tc.fastOnly && !fast {
					continue
				}
				resp, b := rawExchange(t, addr, tc.req) //nolint:bodyclose // rawExchange read and closed it
				if resp.StatusCode != tc.status {
					t.Errorf("%s: status %d, want %d: %.200q", tc.name, resp.StatusCode, tc.status, b)
					continue
				}
				if tc.status < 400 {
					continue
				}
				details := errorEnvelope(t, tc.name, resp, b)
				if tc.detail != "" && (len(details) == 0 || details[0] != tc.detail) {
					t.Errorf("%s: details %q, want %s", tc.name, details, tc.detail)
				}
				if tc.detail != "" && tc.detail != "METHOD_NOT_ALLOWED" {
					want[tc.status]++
				}
			}
			// Each refusal is one debug line, and none is louder: a client's malformed request
			// is not the server's failure.
			total := 0.0
			for _, n := range want {
				total += n
			}
			if got := logs.count(slog.LevelDebug, "request rejected"); float64(got) != total {
				t.Errorf("%d debug lines \"request rejected\", want %v", got, total)
			}
			if loud := logs.atLeast(slog.LevelInfo); len(loud) > 0 {
				t.Errorf("logged above debug: %v", loud)
			}
			for status, n := range want {
				var m dto.Metric
				if err := h.m.requests.WithLabelValues(rejected, strconv.Itoa(status)).Write(&m); err != nil {
					t.Fatal(err)
				}
				got := m.GetCounter().GetValue()
				if got != n {
					t.Errorf("requests_total{route=%q,code=\"%d\"} = %v, want %v", rejected, status, got, n)
				}
			}
		})
	}
}

// TestHeaderTimeoutBothTransports: a client that sends its headers too slowly is cut after
// readHeaderTimeout on both transports (fasthttp has no header timeout of its own).
func TestHeaderTimeoutBothTransports(t *testing.T) {
	var version atomic.Int64
	for _, fast := range []bool{false, true} {
		name := map[bool]string{false: "net/http", true: "fasthttp"}[fast]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u, _ := start(t, transportAPI(t, &version), fast)
			c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			// A header line a second, never the end of the block.
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				_, _ = io.WriteString(c, "GET /item/1 HTTP/1.1\r\nHost: api.test\r\n")
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(time.Second):
					}
					if _, err := io.WriteString(c, "X-Slow-"+strconv.Itoa(i)+": 1\r\n"); err != nil {
						return
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(3 * readHeaderTimeout))
			b, _ := io.ReadAll(c) // until the server closes (fasthttp writes a 408 first)
			took := time.Since(start)
			if took < readHeaderTimeout-time.Second || took > readHeaderTimeout+2*time.Second {
				t.Errorf("connection cut after %v, want about %v", took.Round(100*time.Millisecond), readHeaderTimeout)
			}
			if len(b) > 0 {
				resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(b))), nil)
				if err != nil {
					t.Fatalf("answer %q: %v", b, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if details := errorEnvelope(t, "timeout", resp, body); resp.StatusCode != 408 || len(details) == 0 || details[0] != "REQUEST_TIMEOUT" {
					t.Errorf("answer %d %s", resp.StatusCode, body)
				}
			}
		})
	}
}

// FuzzTransports sends a request line's target and one header value, as raw bytes, to the same
// API on both transports: every answer comes, below 500, and every error is the JSON error
// envelope. Plain `go test` runs the seeds and testdata/fuzz/FuzzTransports (malformed escapes in
// every kind of path, a request line and a header over the limit, control bytes);
// `go test -fuzz=FuzzTransports ./internal/httpapi` explores.
func FuzzTransports(f *testing.F) {
	for _, s := range []struct{ target, header string }{
		{"/item/1", "x"},
		{"/item/%zz", ""},
		{"/nope%zz/status", ""},
		{"/list?q=%zz&q=%FF", "%00"},
		{"/three?from=%", "\xff"},
		{"/list?q=" + strings.Repeat("a", maxHeaderBytes), ""},
		{"/item/1", strings.Repeat("h", maxHeaderBytes)},
	} {
		f.Add(s.target, s.header)
	}
	var version atomic.Int64
	h := transportAPI(f, &version)
	var addrs []string
	for _, fast := range []bool{false, true} {
		u, _ := start(f, h, fast)
		addrs = append(addrs, strings.TrimPrefix(u, "http://"))
	}
	// One request per exchange: a line break would make it two.
	oneLine := strings.NewReplacer("\r", "", "\n", "")
	f.Fuzz(func(t *testing.T, target, header string) {
		req := "GET " + oneLine.Replace(target) + " HTTP/1.1\r\nHost: api.test\r\nX-Fuzz: " + oneLine.Replace(header) + "\r\n\r\n"
		for _, addr := range addrs {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(c, req); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				c.Close()
				t.Fatalf("%.200q: no answer: %v", req, err)
			}
			if resp.Header.Get("Content-Type") == "text/event-stream" {
				resp.Body.Close()
				c.Close() // a stream opened
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			c.Close()
			if err != nil {
				t.Fatalf("%.200q: %v", req, err)
			}
			if resp.StatusCode >= 500 && !strings.HasPrefix(oneLine.Replace(target), "/panic") {
				t.Fatalf("%.200q: %d %q", req, resp.StatusCode, b)
			}
			if resp.StatusCode >= 400 {
				errorEnvelope(t, fmt.Sprintf("%.200q", req), resp, b)
			}
		}
	})
}

// records is a slog.Handler that keeps every record's level and message.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

func (r *records) count(level slog.Level, msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.recs {
		if rec.Level == level && rec.Message == msg {
			n++
		}
	}
	return n
}

func (r *records) atLeast(level slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		if rec.Level >= level {
			out = append(out, rec.Level.String()+" "+rec.Message)
		}
	}
	return out
}
