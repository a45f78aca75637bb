package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rollgate/rollgate/internal/apierr"
)

var errDomainMissing = errors.New("thing missing")

// testAPI is a small API exercising every kind of body and error the wrap handles.
func testAPI(t *testing.T, opts Options) http.Handler {
	t.Helper()
	if opts.Namespace == "" {
		opts.Namespace = "test_api"
	}
	opts.MapError = func(err error) error {
		if errors.Is(err, errDomainMissing) {
			return apierr.NotFoundf("thing not found")
		}
		return err
	}
	routes := []Route{
		{Pattern: "GET /json", Handler: func(*http.Request) (any, error) { return map[string]string{"a": "<&>"}, nil }},
		{Pattern: "GET /raw", Handler: func(*http.Request) (any, error) { return Raw(`{"raw":true}` + "\n"), nil }},
		{Pattern: "GET /pinned/{id}", Handler: func(r *http.Request) (any, error) {
			return Pinned{Body: map[string]string{"id": r.PathValue("id")}}, nil
		}},
		{Pattern: "GET /health", NoStore: true, Handler: func(*http.Request) (any, error) { return "ok", nil }},
		{Pattern: "GET /domain", Handler: func(*http.Request) (any, error) { return nil, fmt.Errorf("load: %w", errDomainMissing) }},
		{Pattern: "GET /bad", Handler: func(*http.Request) (any, error) { return nil, apierr.BadRequest("bad thing") }},
		{Pattern: "GET /internal", Handler: func(*http.Request) (any, error) { return nil, errors.New("SELECT secret FROM t") }},
		{Pattern: "GET /upstream", Handler: func(*http.Request) (any, error) {
			return nil, errors.New(`GET "https://alice:hunter2@rest.example/x?apikey=s3cret": HTTP 502`)
		}},
		{Pattern: "GET /panic", Handler: func(*http.Request) (any, error) { panic("boom") }},
		{Pattern: "GET /slow", Handler: func(r *http.Request) (any, error) { <-r.Context().Done(); return nil, r.Context().Err() }},
		{Pattern: "POST /submit", NoStore: true, Handler: func(*http.Request) (any, error) { return map[string]int{"n": 1}, nil }},
	}
	return New(opts, routes)
}

func serve(h http.Handler, method, path string, header http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://api.test"+path, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestWrap: one table of what the single writer answers, status, headers and body.
func TestWrap(t *testing.T) {
	h := testAPI(t, Options{RequestTimeout: 20 * time.Millisecond})
	tests := []struct {
		name, method, path string
		status             int
		contentType, cache string
		body               string // exact, or a prefix when it ends in "…"
	}{
		{"json keeps html characters", "GET", "/json", 200, "application/json", "public, max-age=1", `{"a":"<&>"}` + "\n"},
		{"raw written as is", "GET", "/raw", 200, "application/json", "public, max-age=1", `{"raw":true}` + "\n"},
		{"pinned lives longer", "GET", "/pinned/7", 200, "application/json", "public, max-age=60", `{"id":"7"}` + "\n"},
		{"no-store route", "GET", "/health", 200, "application/json", "no-store", `"ok"` + "\n"},
		{"head has no body", "HEAD", "/json", 200, "application/json", "public, max-age=1", ""},
		{"trailing slash tolerated", "GET", "/pinned/7/", 200, "application/json", "public, max-age=60", `{"id":"7"}` + "\n"},
		{"domain error mapped", "GET", "/domain", 404, "application/json", "no-store", `{"code":5,"message":"thing not found","details":[]}` + "\n"},
		{"client error", "GET", "/bad", 400, "application/json", "no-store", `{"code":3,"message":"bad thing","details":[]}` + "\n"},
		{"internal cause hidden", "GET", "/internal", 500, "application/json", "no-store", `{"code":13,"message":"internal error","details":[]}` + "\n"},
		{"panic is a 500", "GET", "/panic", 500, "application/json", "no-store", `{"code":13,"message":"internal error","details":[]}` + "\n"},
		{"timeout is a 504", "GET", "/slow", 504, "application/json", "no-store", `{"code":4,"message":"request timed out","details":[]}` + "\n"},
		{"unknown path", "GET", "/nope", 404, "application/json", "no-store", `{"code":5,"message":"no route for GET /nope","details":[]}` + "\n"},
		{"wrong method", "POST", "/json", 405, "application/json", "no-store",
			`{"code":12,"message":"POST /json: use GET","details":["METHOD_NOT_ALLOWED"]}` + "\n"},
		{"wrong method on a POST route", "DELETE", "/submit", 405, "application/json", "no-store",
			`{"code":12,"message":"DELETE /submit: use POST","details":["METHOD_NOT_ALLOWED"]}` + "\n"},
		{"metrics", "GET", "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8; escaping=underscores", "", "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.path, nil)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if got := rec.Header().Get("Content-Type"); !strings.HasPrefix(got, strings.Split(tc.contentType, ";")[0]) {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			if got := rec.Header().Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if prefix, ok := strings.CutSuffix(tc.body, "…"); ok {
				if !strings.HasPrefix(rec.Body.String(), prefix) {
					t.Errorf("body %q, want prefix %q", rec.Body, prefix)
				}
			} else if rec.Body.String() != tc.body {
				t.Errorf("body %q, want %q", rec.Body, tc.body)
			}
			if rec.Code < 300 && tc.method == "GET" && tc.path != "/metrics" && rec.Header().Get("Content-Length") != fmt.Sprint(rec.Body.Len()) {
				t.Errorf("Content-Length %q for %d bytes", rec.Header().Get("Content-Length"), rec.Body.Len())
			}
		})
	}
}

// TestMethodNotAllowed: a known path with another method is a 405 with Allow and a JSON body,
// never a 404 or 400; OPTIONS answers 204 with the same Allow.
func TestMethodNotAllowed(t *testing.T) {
	h := testAPI(t, Options{})
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/json", 405, "GET, HEAD, OPTIONS"},
		{"PUT", "/pinned/3", 405, "GET, HEAD, OPTIONS"},
		{"GET", "/submit", 405, "POST, OPTIONS"},
		{"PATCH", "/metrics", 405, "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/json", 204, "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/submit", 204, "POST, OPTIONS"},
		{"OPTIONS", "/nope", 404, ""},
		{"POST", "/nope", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := serve(h, tc.method, tc.path, nil)
			if rec.Code != tc.status || rec.Header().Get("Allow") != tc.allow {
				t.Fatalf("%d Allow %q, want %d Allow %q", rec.Code, rec.Header().Get("Allow"), tc.status, tc.allow)
			}
			if tc.status >= 400 {
				var e struct {
					Code    int
					Message string
					Details []string
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Message == "" {
					t.Errorf("not a JSON error: %q", rec.Body)
				}
			}
		})
	}
}

// TestClientGone: a client that hangs up is answered 499, counted apart from server errors
// and logged at debug, never at error.
func TestClientGone(t *testing.T) {
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	h := testAPI(t, Options{Registry: reg, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	for _, path := range []string{"/slow", "/internal"} {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest("GET", "http://api.test"+path, nil).WithContext(ctx)
		cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != apierr.StatusClientClosedRequest {
			t.Errorf("%s: status %d", path, rec.Code)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") || strings.Count(logs.String(), "level=DEBUG msg=\"client went away\"") != 2 {
		t.Errorf("logs:\n%s", logs.String())
	}
	body := serve(h, "GET", "/metrics", nil).Body.String()
	for _, want := range []string{
		`test_api_client_disconnects_total{route="GET /slow"} 1`,
		`test_api_client_disconnects_total{route="GET /internal"} 1`,
		`test_api_requests_total{code="499",route="GET /slow"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `code="5`) {
		t.Errorf("a disconnect counted as a 5xx:\n%s", body)
	}
}

// TestMetricsTwiceOnOneRegistry: two APIs on one registry share the collectors, no panic.
func TestMetricsTwiceOnOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := testAPI(t, Options{Registry: reg})
	b := testAPI(t, Options{Registry: reg})
	serve(a, "GET", "/json", nil)
	serve(b, "GET", "/json", nil)
	serve(b, "GET", "/panic", nil)
	body := serve(a, "GET", "/metrics", nil).Body.String()
	for _, want := range []string{
		`test_api_requests_total{code="200",route="GET /json"} 2`,
		`test_api_requests_total{code="500",route="GET /panic"} 1`,
		`test_api_request_duration_seconds_count{route="GET /json"} 2`,
		`test_api_panics_total 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestMetricsGathererErrorKeepsTheRest: with a Gatherer (the fleet's: its registry and every
// chain's), one gatherer's error is logged and counted, and the scrape still answers 200 with
// every other family instead of a bare 500.
func TestMetricsGathererErrorKeepsTheRest(t *testing.T) {
	reg := prometheus.NewRegistry()
	failing := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		return nil, errors.New("chain x: collector broke")
	})
	var logs bytes.Buffer
	h := testAPI(t, Options{Registry: reg, Gatherer: prometheus.Gatherers{reg, failing},
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	serve(h, "GET", "/json", nil)
	rec := serve(h, "GET", "/metrics", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `test_api_requests_total{code="200",route="GET /json"} 1`) {
		t.Fatalf("/metrics: %d, want 200 with the registry's families:\n%s", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "chain x: collector broke") {
		t.Errorf("the gather error not logged at warn:\n%s", logs.String())
	}
	if body := serve(h, "GET", "/metrics", nil).Body.String(); !strings.Contains(body, "promhttp_metric_handler_errors_total{cause=\"gathering\"} 1") {
		t.Errorf("the gather error not counted:\n%s", body)
	}
}

// TestSwaggerErrors: every answer under /swagger/ is the UI or a JSON error.
func TestSwaggerErrors(t *testing.T) {
	h := testAPI(t, Options{OpenAPI: []byte(`{"openapi":"3.0.3"}`)})
	tests := []struct {
		rawPath string
		status  int
		ctype   string
	}{
		{"/swagger/doc.json", 200, "application/json"},
		{"/swagger/", 200, "text/html"},
		{"/swagger/swagger-initializer.js", 200, "text/javascript"},
		{"/swagger", 301, ""},
		{"/swagger/%ff", 400, "application/json"},
		{"/swagger/%ff%fe.js", 400, "application/json"},
		{"/swagger/a%00b", 404, "application/json"},
		{"/swagger/nonexistent", 404, "application/json"},
		{"/swagger/swagger-ui.css/x", 404, "application/json"},
		{"/swagger/%2e%2e/go.mod", 400, "application/json"},
		{"/swagger/a%2f%2fb", 400, "application/json"},
	}
	for _, tc := range tests {
		t.Run(tc.rawPath, func(t *testing.T) {
			req := httptest.NewRequest("GET", "http://api.test/", nil)
			u, err := req.URL.Parse(tc.rawPath)
			if err != nil {
				t.Fatal(err)
			}
			req.URL = u
			req.RequestURI = tc.rawPath
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.ctype) {
				t.Fatalf("%d %q, want %d %q: %.200q", rec.Code, rec.Header().Get("Content-Type"), tc.status, tc.ctype, rec.Body)
			}
			if tc.ctype == "application/json" && !json.Valid(rec.Body.Bytes()) {
				t.Errorf("body is not JSON: %q", rec.Body)
			}
		})
	}
}

// TestServerErrorLogged: a 5xx is logged at error with its cause, credentials redacted; the
// client sees a fixed message.
func TestServerErrorLogged(t *testing.T) {
	var logs bytes.Buffer
	h := testAPI(t, Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	rec := serve(h, "GET", "/upstream", nil)
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "rest.example") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
	l := logs.String()
	if !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "rest.example") || strings.Contains(l, "hunter2") || strings.Contains(l, "s3cret") {
		t.Errorf("log: %s", l)
	}
}
