package cli

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// TestCORSFlags: rollytics' environment names and defaults, flags winning over them.
func TestCORSFlags(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		args    []string
		want    httpapi.CORS
		wantErr string
	}{
		{name: "off by default, any origin once on", want: httpapi.CORS{AllowOrigins: []string{"*"}}},
		{name: "rollytics environment", vars: map[string]string{"CORS_ENABLED": "true", "CORS_ALLOW_ORIGINS": "https://app.example.com, *.example.org",
			"CORS_ALLOW_METHODS": "GET,POST", "CORS_ALLOW_HEADERS": "Content-Type,Authorization", "CORS_ALLOW_CREDENTIALS": "true",
			"CORS_EXPOSE_HEADERS": "ETag", "CORS_MAX_AGE": "600"},
			want: httpapi.CORS{Enabled: true, AllowOrigins: []string{"https://app.example.com", "*.example.org"}, AllowMethods: []string{"GET", "POST"},
				AllowHeaders: []string{"Content-Type", "Authorization"}, AllowCredentials: true, ExposeHeaders: []string{"ETag"}, MaxAge: 10 * time.Minute}},
		{name: "flags win", vars: map[string]string{"CORS_ENABLED": "false", "CORS_ALLOW_ORIGINS": "https://a.example"},
			args: []string{"--cors-enabled", "--cors-allow-origins", "https://b.example", "--cors-max-age", "5"},
			want: httpapi.CORS{Enabled: true, AllowOrigins: []string{"https://b.example"}, MaxAge: 5 * time.Second}},
		{name: "bad boolean", vars: map[string]string{"CORS_ENABLED": "yes please"}, wantErr: "CORS_ENABLED"},
		{name: "negative max age", args: []string{"--cors-max-age", "-1"}, wantErr: "cannot be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c corsFlags
			err := parseGroup(tc.vars, tc.args, &c)
			if !checkErr(t, err, tc.wantErr) {
				return
			}
			if got := c.config(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// preflightAllowsAnyOrigin sends a browser's preflight to url and reports whether the answer
// lets a page on another origin make the call.
func preflightAllowsAnyOrigin(t *testing.T, url, method string) bool {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", method)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("preflight %s: %v", url, err)
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusNoContent && resp.Header.Get("Access-Control-Allow-Origin") == "*" &&
		strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), method)
}
