package api

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
)

// TestSubmitChainDown: /v2/tx/submit to a chain whose RPC does not answer is a JSON 503
// CHAIN_UNAVAILABLE (the node may be back for the next attempt), neither a 500 nor the
// tracking store's STORE_UNAVAILABLE.
func TestSubmitChainDown(t *testing.T) {
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Chains {
		if len(c.RPC) > 0 {
			c.RPC = []string{"http://127.0.0.1:1"}
		}
	}
	st, err := track.OpenStore(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "track.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live := registry.NewLive(reg)
	tr := track.New(st, live, track.Config{RPCOptions: []httpx.Option{httpx.WithMaxAttempts(1)}})
	h := New(Config{Tracker: tr}, live, nil, prometheus.NewRegistry())
	tx, _ := signedTx(t, "chain down")
	code, b := do(t, h, http.MethodPost, "/v2/tx/submit", map[string]string{"tx": tx, "chain_id": l1})
	var body struct {
		Code    int
		Details []string
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%d %s: %v", code, b, err)
	}
	if code != http.StatusServiceUnavailable || len(body.Details) != 1 || body.Details[0] != ReasonChainUnavailable {
		t.Fatalf("submit to a chain that is down: %d %s", code, b)
	}
}
