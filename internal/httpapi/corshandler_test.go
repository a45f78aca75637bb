package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCORSHandler: the wrapper for servers that are not this package's APIs answers a
// preflight itself (204, the methods it was given, the asked headers), adds the headers to
// every other request it passes on, refuses an origin outside the list by leaving them out,
// and is a no-op when CORS is off.
func TestCORSHandler(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	methods := []string{http.MethodGet, http.MethodPost}
	cases := []struct {
		name                 string
		cors                 CORS
		method, origin, want string // want: Access-Control-Allow-Origin
		preflight            bool
		status               int
		allowMethods         string
	}{
		{"off", CORS{}, http.MethodGet, "http://a.test", "", false, http.StatusTeapot, ""},
		{"off preflight", CORS{}, http.MethodOptions, "http://a.test", "", true, http.StatusTeapot, ""},
		{"any origin GET", CORS{Enabled: true}, http.MethodGet, "http://a.test", "*", false, http.StatusTeapot, ""},
		{"any origin preflight", CORS{Enabled: true}, http.MethodOptions, "http://a.test", "*", true, http.StatusNoContent, "GET, POST, OPTIONS"},
		{"OPTIONS that is no preflight", CORS{Enabled: true}, http.MethodOptions, "http://a.test", "*", false, http.StatusTeapot, ""},
		{"listed origin", CORS{Enabled: true, AllowOrigins: []string{"http://a.test"}}, http.MethodGet, "http://a.test", "http://a.test", false, http.StatusTeapot, ""},
		{"unlisted origin", CORS{Enabled: true, AllowOrigins: []string{"http://a.test"}}, http.MethodGet, "http://b.test", "", false, http.StatusTeapot, ""},
		{"unlisted origin preflight", CORS{Enabled: true, AllowOrigins: []string{"http://a.test"}}, http.MethodOptions, "http://b.test", "", true, http.StatusNoContent, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := CORSHandler(c.cors, methods, next)
			req := httptest.NewRequest(c.method, "/x", nil)
			req.Header.Set("Origin", c.origin)
			if c.preflight {
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "content-type")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != c.status || w.Header().Get("Access-Control-Allow-Origin") != c.want || w.Header().Get("Access-Control-Allow-Methods") != c.allowMethods {
				t.Errorf("status %d, origin %q, methods %q; want %d %q %q", w.Code, w.Header().Get("Access-Control-Allow-Origin"),
					w.Header().Get("Access-Control-Allow-Methods"), c.status, c.want, c.allowMethods)
			}
			if c.preflight && c.want != "" && w.Header().Get("Access-Control-Allow-Headers") != "content-type" {
				t.Errorf("allow headers %q", w.Header().Get("Access-Control-Allow-Headers"))
			}
		})
	}
}
