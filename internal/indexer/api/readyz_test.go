package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

type reasoned struct{ reason, msg string }

func (r reasoned) Error() string       { return r.msg }
func (r reasoned) ReadyReason() string { return r.reason }

// TestReadyz: /readyz is 200 when the store answers and ingestion is current, 503 with the
// reason otherwise, never cached.
func TestReadyz(t *testing.T) {
	db := backends(t)["sqlite"](t)
	for _, tc := range []struct {
		name       string
		ready      func() error
		status     int
		wantDetail string
	}{
		{"no_ingestion_here", nil, 200, ""},
		{"current", func() error { return nil }, 200, ""},
		{"lagging", func() error { return reasoned{"LAGGING", "40 blocks behind the chain tip"} }, 503, "LAGGING"},
		{"plain_error", func() error { return errors.New("something") }, 503, "NOT_READY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testCfg
			cfg.Ready = tc.ready
			var logs bytes.Buffer
			rec := do(New(cfg, db, slog.New(slog.NewTextHandler(&logs, nil)), nil), "/readyz")
			if logs.Len() > 0 {
				t.Errorf("a readiness answer is logged (probes poll it): %s", logs.String())
			}
			if rec.Code != tc.status || rec.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("%d (Cache-Control %q): %s", rec.Code, rec.Header().Get("Cache-Control"), rec.Body)
			}
			var body struct {
				Status  string   `json:"status"`
				Message string   `json:"message"`
				Details []string `json:"details"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if tc.status == http.StatusOK && body.Status != "ready" {
				t.Errorf("body %s", rec.Body)
			}
			if tc.wantDetail != "" && (len(body.Details) != 1 || body.Details[0] != tc.wantDetail || body.Message == "") {
				t.Errorf("body %s, want details [%s] and a message", rec.Body, tc.wantDetail)
			}
		})
	}
	if rec := do(New(testCfg, failingReader{}, nil, nil), "/readyz"); rec.Code != 503 {
		t.Errorf("store down: %d %s", rec.Code, rec.Body)
	}
}

// TestIngestOnly: the ingest-only server answers liveness, the pipeline's readiness in the
// API's shape (never cached), its metrics, and the API's JSON 404 for anything else.
func TestIngestOnly(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		ready      error
		status     int
		want       string
	}{
		{"healthz", "/healthz", errors.New("not current"), 200, `{"status":"ok"}` + "\n"},
		{"ready", "/readyz", nil, 200, `{"status":"ready"}` + "\n"},
		{"lagging", "/readyz", reasoned{"LAGGING", "40 blocks behind"}, 503,
			`{"code":14,"message":"not ready: 40 blocks behind","details":["LAGGING"]}`},
		{"plain_error", "/readyz", errors.New("something"), 503, `{"code":14,"message":"not ready: something","details":["NOT_READY"]}`},
		{"no_api_here", "/indexer/tx/v1/txs", nil, 404, `{"code":5,"message":"Cannot GET /indexer/tx/v1/txs","details":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := NewIngestOnly(func() error { return tc.ready }, slog.New(slog.NewTextHandler(&logs, nil)), nil)
			rec := do(h, tc.path)
			if rec.Code != tc.status || strings.TrimSpace(rec.Body.String()) != strings.TrimSpace(tc.want) ||
				rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("%d (Content-Type %q, Cache-Control %q): %s", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"), rec.Body)
			}
			if ra := rec.Header().Get("Retry-After"); (tc.status == 503) != (ra != "") {
				t.Errorf("status %d with Retry-After %q", rec.Code, ra)
			}
			if logs.Len() > 0 {
				t.Errorf("logged: %s", logs.String())
			}
		})
	}
	reg := prometheus.NewRegistry()
	h := NewIngestOnly(func() error { return nil }, nil, reg)
	do(h, "/healthz")
	if rec := do(h, "/metrics"); rec.Code != 200 || !strings.Contains(rec.Body.String(), `rollgate_indexer_api_requests_total{code="200",route="GET /healthz"} 1`) {
		t.Errorf("/metrics %d:\n%.2000s", rec.Code, rec.Body)
	}
}
