package api

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
)

// TestSmallHoles: small holes in input checking found by probing, each a JSON 4xx now.
func TestSmallHoles(t *testing.T) {
	h := newEVM(testCfg, backends(t)["sqlite"](t), nil, nil)
	httpapitest.CheckJSONErrors(t, h, append(httpapitest.SwaggerHoles,
		httpapitest.Hole{RawPath: "/indexer/tx/v1/txs?pagination.limit=99999999999999999999999", Status: 400},
		httpapitest.Hole{RawPath: "/indexer/block/v1/blocks?pagination.offset=99999999999999999999999", Status: 400},
		httpapitest.Hole{RawPath: "/indexer/block/v1/blocks/%ff", Status: 400},
	))
}

// TestClientGone: a client that hangs up mid-request is a 499, counted apart and logged at
// debug; it never shows as a 5xx in the metrics or an error in the log.
func TestClientGone(t *testing.T) {
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	h := newEVM(testCfg, backends(t)["sqlite"](t), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), reg)
	for _, path := range []string{"/indexer/tx/v1/txs", "/indexer/block/v1/blocks/35", "/indexer/tx/v1/txs/" + txSend} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest(http.MethodGet, "http://idx.test"+path, nil).WithContext(ctx)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 499 {
			t.Errorf("%s: status %d: %s", path, rec.Code, rec.Body)
		}
	}
	metrics := do(h, "/metrics").Body.String()
	for _, want := range []string{
		`rollgate_indexer_api_client_disconnects_total{route="GET /indexer/tx/v1/txs"} 1`,
		`rollgate_indexer_api_client_disconnects_total{route="GET /indexer/block/v1/blocks/{height}"} 1`,
		`rollgate_indexer_api_requests_total{code="499",route="GET /indexer/tx/v1/txs/{tx_hash}"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, `code="5`) || strings.Contains(logs.String(), "level=ERROR") || strings.Count(logs.String(), "client went away") != 3 {
		t.Errorf("a disconnect shows as a server error:\n%s\n%s", logs.String(), metrics)
	}
}
