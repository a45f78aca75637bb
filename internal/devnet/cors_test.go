package devnet_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/httpapi"
)

// TestCORSOnEveryServer: with CORS on, every server of every chain (CometBFT RPC, REST,
// JSON-RPC, the executor API) answers a browser's preflight and adds
// Access-Control-Allow-Origin to its answers, so a page on another origin (InterwovenKit's
// app) can read balances and broadcast; with it off, none does, as a node without
// cors_allowed_origins.
func TestCORSOnEveryServer(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := devnet.DefaultConfig()
		cfg.Chains = cfg.Chains[:2]
		cfg.ManualBlocks, cfg.GenesisTime, cfg.LayerZero = true, genesis, true
		cfg.CORS = httpapi.CORS{Enabled: on, AllowOrigins: []string{"*"}}
		net, err := devnet.Start(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { net.Close() })
		var urls []string
		for _, c := range net.Chains() {
			urls = append(urls, c.RPC()+"/status", c.REST()+"/cosmos/base/tendermint/v1beta1/node_info")
			if c.JSONRPC() != "" {
				urls = append(urls, c.JSONRPC())
			}
			if u := net.ExecutorURL(c.ID()); u != "" {
				urls = append(urls, u+"/status")
			}
		}
		if eth, ok := net.Ethereum(); ok {
			urls = append(urls, eth.JSONRPC()) // the LayerZero Ethereum chain's
		}
		if len(urls) != 7 {
			t.Fatalf("urls %v", urls)
		}
		for _, u := range urls {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions, u, nil)
			req.Header.Set("Origin", "http://localhost:5173")
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ao, methods := resp.Header.Get("Access-Control-Allow-Origin"), resp.Header.Get("Access-Control-Allow-Methods")
			if on && (resp.StatusCode != 204 || ao != "*" || !strings.Contains(methods, "POST") || resp.Header.Get("Access-Control-Allow-Headers") != "content-type") {
				t.Errorf("preflight %s: %d origin %q methods %q", u, resp.StatusCode, ao, methods)
			}
			if !on && ao != "" {
				t.Errorf("CORS off, preflight %s allowed %q", u, ao)
			}
			req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
			req.Header.Set("Origin", "http://localhost:5173")
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); (got == "*") != on {
				t.Errorf("CORS %v, GET %s: Access-Control-Allow-Origin %q", on, u, got)
			}
		}
	}
}
