// Package httpapitest checks, route by route, what internal/httpapi promises every API: CORS
// preflights answered with the configured headers, and a wrong method answered 405 with Allow
// and a JSON body. Each API's tests run it over their own routes table.
package httpapitest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// CORS is the configuration CheckCORS expects the API under test to be built with.
var CORS = httpapi.CORS{
	Enabled:          true,
	AllowOrigins:     []string{"https://*.example.com", "http://localhost:5173"},
	AllowCredentials: true,
	ExposeHeaders:    []string{"Content-Length"},
	MaxAge:           10 * time.Minute,
}

// Operational are the routes httpapi adds to every API with an OpenAPI document.
var Operational = []httpapi.Route{
	{Pattern: "GET /swagger/doc.json"},
	{Pattern: "GET /swagger/{file...}"},
	{Pattern: "GET /metrics"},
}

// Path is rt's path with each {name} or {name...} wildcard replaced by samples[name].
func Path(t *testing.T, rt httpapi.Route, samples map[string]string) string {
	t.Helper()
	p := rt.Path()
	for {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			return p
		}
		j := strings.IndexByte(p[i:], '}')
		name := strings.TrimSuffix(p[i+1:i+j], "...")
		v, ok := samples[name]
		if !ok {
			t.Fatalf("%s: no sample value for {%s}", rt.Pattern, name)
		}
		p = p[:i] + v + p[i+j+1:]
	}
}

func send(h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	// An event stream answers until its client goes: this client goes after a moment.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, "http://api.test"+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// CheckCORS sends a browser's preflight to every route of h (built with CORS) from an allowed
// and a refused origin, and a cross-origin call of the route's own method, and checks the
// headers of each answer.
func CheckCORS(t *testing.T, h http.Handler, routes []httpapi.Route, samples map[string]string) {
	t.Helper()
	const origin = "https://explorer.example.com"
	for _, rt := range routes {
		path := Path(t, rt, samples)
		t.Run(rt.Pattern, func(t *testing.T) {
			rec := send(h, http.MethodOptions, path, map[string]string{"Origin": origin,
				"Access-Control-Request-Method": rt.Method(), "Access-Control-Request-Headers": "content-type,x-client"})
			want := map[string]string{
				"Access-Control-Allow-Origin":      origin,
				"Access-Control-Allow-Headers":     "content-type,x-client",
				"Access-Control-Allow-Credentials": "true",
				"Access-Control-Max-Age":           "600",
			}
			if rec.Code != http.StatusNoContent {
				t.Errorf("preflight: status %d: %s", rec.Code, rec.Body)
			}
			for k, v := range want {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("preflight: %s = %q, want %q", k, got, v)
				}
			}
			for _, k := range []string{"Access-Control-Allow-Methods", "Allow"} {
				if !slices.Contains(strings.Split(rec.Header().Get(k), ", "), rt.Method()) {
					t.Errorf("preflight: %s = %q lacks %s", k, rec.Header().Get(k), rt.Method())
				}
			}
			if !slices.Contains(rec.Header().Values("Vary"), "Origin") {
				t.Errorf("preflight: Vary = %q lacks Origin", rec.Header().Values("Vary"))
			}

			// An origin outside the list gets no permission (the browser then blocks the call);
			// neither does one that only ends like an allowed domain.
			for _, refused := range []string{"https://evil.test", "https://evilexample.com", "https://example.com"} {
				rec = send(h, http.MethodOptions, path, map[string]string{"Origin": refused, "Access-Control-Request-Method": rt.Method()})
				if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "" {
					t.Errorf("preflight from %s: %d, Allow-Origin %q", refused, rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
				}
			}

			// The call itself carries the permission whatever its status (a POST without a
			// body is a 400, still readable by the page).
			rec = send(h, rt.Method(), path, map[string]string{"Origin": origin})
			if rec.Header().Get("Access-Control-Allow-Origin") != origin || rec.Header().Get("Access-Control-Expose-Headers") != "Content-Length" ||
				rec.Header().Get("Access-Control-Allow-Credentials") != "true" {
				t.Errorf("%s with Origin: %d, Allow-Origin %q, Expose %q", rt.Method(), rec.Code,
					rec.Header().Get("Access-Control-Allow-Origin"), rec.Header().Get("Access-Control-Expose-Headers"))
			}
			if rec.Code >= 500 {
				t.Errorf("%s with Origin: status %d: %s", rt.Method(), rec.Code, rec.Body)
			}
		})
	}
}

// CheckMethodNotAllowed asks every route of h with a method it does not serve and checks the
// 405: an Allow header naming the route's method and a JSON error body.
func CheckMethodNotAllowed(t *testing.T, h http.Handler, routes []httpapi.Route, samples map[string]string) {
	t.Helper()
	for _, rt := range routes {
		path := Path(t, rt, samples)
		wrong := http.MethodPost
		if rt.Method() == http.MethodPost {
			wrong = http.MethodGet
		}
		for _, m := range []string{wrong, http.MethodDelete, http.MethodPut} {
			// A path served with both GET and POST (two routes) has no wrong one among them.
			if slices.ContainsFunc(routes, func(o httpapi.Route) bool { return o.Path() == rt.Path() && o.Method() == m }) {
				continue
			}
			t.Run(m+" "+rt.Pattern, func(t *testing.T) {
				rec := send(h, m, path, nil)
				if rec.Code != http.StatusMethodNotAllowed {
					t.Fatalf("status %d, want 405: %s", rec.Code, rec.Body)
				}
				if allow := strings.Split(rec.Header().Get("Allow"), ", "); !slices.Contains(allow, rt.Method()) || !slices.Contains(allow, http.MethodOptions) {
					t.Errorf("Allow = %q, want %s and OPTIONS", rec.Header().Get("Allow"), rt.Method())
				}
				var e struct {
					Code    int      `json:"code"`
					Message string   `json:"message"`
					Details []string `json:"details"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Code != 12 || !slices.Contains(e.Details, "METHOD_NOT_ALLOWED") ||
					rec.Header().Get("Content-Type") != "application/json" {
					t.Errorf("body %q (%s)", rec.Body, rec.Header().Get("Content-Type"))
				}
			})
		}
	}
}

// Hole is one request from the list of small input-checking holes and the JSON status it must get.
type Hole struct {
	RawPath string // sent as is: may hold escapes that decode to invalid bytes
	Status  int
}

// SwaggerHoles are the /swagger/ requests that once answered plain text: invalid bytes in
// the file name, a file that does not exist, a path escaping the UI.
var SwaggerHoles = []Hole{
	{"/swagger/%ff", 400},
	{"/swagger/%ff%fe", 400},
	{"/swagger/x%c3%28.js", 400},
	{"/swagger/%2e%2e/go.mod", 400},
	{"/swagger/a%2f%2fb", 400},
	{"/swagger/nonexistent", 404},
	{"/swagger/a%00b", 404},
	{"/swagger/index.html/x", 404},
}

// CheckJSONErrors sends each hole as a GET and checks its status and that the body is a JSON
// error ({"code","message","details"}), never text.
func CheckJSONErrors(t *testing.T, h http.Handler, holes []Hole) {
	t.Helper()
	for _, hole := range holes {
		t.Run(hole.RawPath, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "http://api.test/", nil)
			u, err := req.URL.Parse(hole.RawPath)
			if err != nil {
				t.Fatal(err)
			}
			req.URL, req.RequestURI = u, hole.RawPath
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var e struct {
				Code    *int      `json:"code"`
				Message string    `json:"message"`
				Details *[]string `json:"details"`
			}
			if rec.Code != hole.Status || rec.Header().Get("Content-Type") != "application/json" ||
				json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Code == nil || e.Message == "" || e.Details == nil {
				t.Errorf("%d %q %q, want %d and a JSON error", rec.Code, rec.Header().Get("Content-Type"), rec.Body, hole.Status)
			}
		})
	}
}
