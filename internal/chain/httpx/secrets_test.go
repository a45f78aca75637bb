package httpx

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBaseQueryKept: a base URL's query (a query-string API key) reaches the upstream with
// the request's own path query and parameters after it.
func TestBaseQueryKept(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RequestURI()
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	for _, tc := range []struct{ base, path, want string }{
		{srv.URL + "/v1?apikey=K1", "/status?height=5", "/v1/status?apikey=K1&height=5&k=v"},
		{srv.URL + "/?key=K2", "/status", "/status?key=K2&k=v"},
		{srv.URL, "/status", "/status?k=v"},
	} {
		c, err := New(tc.base, fast()...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetJSON(context.Background(), tc.path, map[string][]string{"k": {"v"}}, nil); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("base %s path %s: upstream saw %q, want %q", tc.base, tc.path, got, tc.want)
		}
	}
}

// TestCredentialsNeverShown: credentials in base URLs (userinfo, apikey/key/token values) go
// upstream but appear in no error, log line (debug included), hook or Endpoints, whatever the
// failure: an answered 5xx, a dead endpoint, a rotation, a non-JSON body.
func TestCredentialsNeverShown(t *testing.T) {
	secrets := []string{"hunter2", "alice", "S3CRETKEY", "T0KEN", "K3Y"}
	srv, _ := flaky(t, []string{"500", "invalid", "close", "400"})
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://alice:hunter2@" + dead.Addr().String() + "/?token=T0KEN"
	dead.Close()
	live := strings.Replace(srv.URL, "http://", "http://alice:hunter2@", 1) + "/?apikey=S3CRETKEY&key=K3Y"
	var logs testutil.SyncBuffer
	var hooked []string
	var hmu sync.Mutex
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := New(deadURL+","+live, fast(WithLogger(log), WithMaxAttempts(8), WithHooks(Hooks{OnAttempt: func(a Attempt) {
		hmu.Lock()
		defer hmu.Unlock()
		hooked = append(hooked, a.BaseURL+" "+a.Path)
		if a.Err != nil {
			hooked = append(hooked, a.Err.Error())
		}
	}}))...)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for range 4 {
		resp, err := c.Do(context.Background(), Request{Path: "/status", ExpectJSON: true})
		if err != nil {
			shown = append(shown, err.Error())
		}
		if resp != nil {
			shown = append(shown, resp.URL)
		}
	}
	shown = append(shown, c.Endpoints()...)
	shown = append(shown, logs.String())
	shown = append(shown, hooked...)
	all := strings.Join(shown, "\n")
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("secret %q shown:\n%s", s, all)
		}
	}
	if !strings.Contains(all, "httpx: rotating endpoint") || !strings.Contains(all, "xxxxx@127.0.0.1") {
		t.Errorf("the test did not exercise a rotation between redacted URLs:\n%s", all)
	}
}

// TestFailureWarningsRateLimited: a burst of failed attempts is one warning, the rest debug.
func TestFailureWarningsRateLimited(t *testing.T) {
	srv, _ := flaky(t, []string{"500", "500", "500", "500", "500"})
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, _ := New(srv.URL, fast(WithLogger(log), WithMaxAttempts(0))...)
	if _, err := c.GetJSON(context.Background(), "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "httpx: upstream attempt failed"); n != 1 {
		t.Errorf("%d warnings for a burst of 5 failures, want 1:\n%s", n, logs.String())
	}
}
