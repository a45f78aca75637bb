package swaggerui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /swagger/", Handler("/swagger/", "/swagger/doc.json"))
	mux.Handle("GET /swagger", Handler("/swagger/", "/swagger/doc.json"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tests := []struct {
		path     string
		status   int
		contains string
	}{
		{"/swagger/", 200, `<div id="swagger-ui">`},
		{"/swagger/swagger-initializer.js", 200, `url: "/swagger/doc.json"`},
		{"/swagger/swagger-ui-bundle.js", 200, "SwaggerUIBundle"},
		{"/swagger/swagger-ui.css", 200, ".swagger-ui"},
		{"/swagger", 200, `<div id="swagger-ui">`}, // redirected to /swagger/
		{"/swagger/nope.js", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			resp, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.contains) {
				t.Errorf("%s: %d, body %.120q; want %d containing %q", tc.path, resp.StatusCode, b, tc.status, tc.contains)
			}
		})
	}
}
