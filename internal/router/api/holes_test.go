package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TestSmallHoles: small holes in input checking found by probing, each a JSON 4xx now.
func TestSmallHoles(t *testing.T) {
	httpapitest.CheckJSONErrors(t, newServer(t), httpapitest.SwaggerHoles)
}

type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }

// TestClientGone: a client that hangs up mid-body is a 499, counted apart and logged at
// debug, never a 5xx.
func TestClientGone(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	prom := prometheus.NewRegistry()
	h := New(Config{}, registry.NewLive(reg), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), prom)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/v2/fungible/route", io.NopCloser(failingBody{context.Canceled})).WithContext(ctx)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 499 {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	_, metrics := do(t, h, http.MethodGet, "/metrics", nil)
	if !strings.Contains(string(metrics), `rollgate_router_api_client_disconnects_total{route="POST /v2/fungible/route"} 1`) ||
		strings.Contains(string(metrics), `code="5`) || strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "level=DEBUG msg=\"client went away\"") {
		t.Errorf("disconnect not counted apart:\n%s\n%s", logs.String(), metrics)
	}
}

// barrierBalances answers only once `want` calls are in flight at the same time: chains asked
// one after another would never get there.
type barrierBalances struct {
	mu      sync.Mutex
	waiting int
	want    int
	all     chan struct{}
}

func (b *barrierBalances) Balances(ctx context.Context, c *registry.Chain, _ string) (map[string]string, error) {
	b.mu.Lock()
	b.waiting++
	if b.waiting == b.want {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return map[string]string{"uinit": "5"}, nil
	case <-time.After(5 * time.Second):
		return nil, errors.New("chains were asked one after another")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestBalancesInParallel: /v2/info/balances asks every chain at once.
func TestBalancesInParallel(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	src := &barrierBalances{want: 3, all: make(chan struct{})}
	h := New(Config{Balances: src}, registry.NewLive(reg), nil, nil)
	st, body := do(t, h, http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{
		l1: map[string]any{"address": userInit}, mevm: map[string]any{"address": userInit}, mmov: map[string]any{"address": userInit}}})
	if st != 200 || strings.Contains(string(body), "one after another") || strings.Count(string(body), `"amount":"5"`) != 3 {
		t.Errorf("%d %s", st, body)
	}
}

// TestNoCredentialsServed: a registry whose endpoint URLs carry credentials (user:password,
// ?apikey=, a bare token as user name) never serves them, neither in /v2/info/chains nor in
// the error bodies of /v2/info/balances, whose upstream fails.
func TestNoCredentialsServed(t *testing.T) {
	var upstreamSawKey bool
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		upstreamSawKey = upstreamSawKey || r.URL.Query().Get("apikey") == "s3cret-q"
		mu.Unlock()
		http.Error(w, "upstream down", http.StatusInternalServerError)
	}))
	defer up.Close()
	secretREST := strings.Replace(up.URL, "http://", "http://alice:hunter2-pw@", 1) + "/?apikey=s3cret-q&chain=hub"
	secretRPC := "http://t0ken-as-user@127.0.0.1:1/?token=s3cret-t"
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(devnetRegistry)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cosmoshub", "initia"} {
		p := filepath.Join(dir, name, "chain.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, old := range []string{"http://127.0.0.1:26041", "http://127.0.0.1:26001"} {
			s = strings.ReplaceAll(s, `"`+old+`"`, `"`+secretREST+`"`)
		}
		for _, old := range []string{"http://127.0.0.1:26040", "http://127.0.0.1:26000"} {
			s = strings.ReplaceAll(s, `"`+old+`"`, `"`+secretRPC+`"`)
		}
		if s == string(b) {
			t.Fatalf("%s: no endpoint replaced; the devnet registry's ports changed", p)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := registry.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Chain(hub).REST[0] != secretREST {
		t.Fatalf("registry REST %q", reg.Chain(hub).REST[0])
	}
	h := New(Config{Balances: &registry.RESTBalances{Options: []httpx.Option{httpx.WithMaxAttempts(1), httpx.WithTimeout(2 * time.Second)}}},
		registry.NewLive(reg), nil, nil)
	secrets := []string{"hunter2-pw", "s3cret-q", "s3cret-t", "t0ken-as-user", "alice"}
	st, chains := do(t, h, http.MethodGet, "/v2/info/chains?include_evm=true", nil)
	if st != 200 || !strings.Contains(string(chains), "xxxxx@127.0.0.1") {
		t.Fatalf("chains: %d %s", st, chains)
	}
	st, bal := do(t, h, http.MethodPost, "/v2/info/balances", map[string]any{"chains": map[string]any{
		hub: map[string]any{"address": userHub, "denoms": []string{"uatom"}}, l1: map[string]any{"address": userInit, "denoms": []string{"uinit"}}}})
	if st != 200 || strings.Count(string(bal), `"error"`) != 2 {
		t.Fatalf("balances: %d %s", st, bal)
	}
	for _, s := range secrets {
		if strings.Contains(string(chains), s) || strings.Contains(string(bal), s) {
			t.Errorf("%q served:\nchains %s\nbalances %s", s, chains, bal)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The credentials are hidden, not dropped: the upstream got the base URL's key.
	if !upstreamSawKey {
		t.Error("the upstream never received the base URL's apikey")
	}
}
