package api

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/testutil"
)

// exportCases are the CSV exports over the captured minievm chain; each is asked with
// format=csv and again with Accept: text/csv after its JSON answer was cached, and both must
// be the golden bytes.
var exportCases = []struct{ name, path string }{
	{"csv_transfers_by_account", "/indexer/transfer/v1/transfers/by_account/" + acc1},
	{"csv_transfers_by_account_range_desc", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=2026-11-21T09:01:51Z&end_time=2026-11-21T09:02:10Z&pagination.reverse=true"},
	{"csv_transfers_by_account_in_uusdc", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?direction=in&denom=uusdc"},
	{"csv_transfers_by_account_empty_range", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=2030-01-01T00:00:00Z"},
	{"csv_txs_by_account", "/indexer/tx/v1/txs/by_account/" + acc1},
	{"csv_txs_by_account_range_signer", "/indexer/tx/v1/txs/by_account/" + acc1 + "?is_signer=true&start_time=2026-11-21T09:01:51Z"},
}

// TestScaleDecimal: base units to exact token decimals.
func TestScaleDecimal(t *testing.T) {
	for _, c := range []struct {
		v    string
		d    int
		want string
	}{{"1500", 6, "0.001500"}, {"-1500", 6, "-0.001500"}, {"1000000", 6, "1.000000"}, {"0", 6, "0.000000"}, {"-7", 0, "-7"},
		{"123456789012345678901234567890", 18, "123456789012.345678901234567890"}} {
		if got := scaleDecimal(c.v, c.d); got != c.want {
			t.Errorf("scaleDecimal(%s, %d) = %s, want %s", c.v, c.d, got, c.want)
		}
	}
}

func TestExportGolden(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			// The registry knows two of the chain's denoms: the others' decimal columns stay empty.
			cfg := testCfg
			cfg.Decimals = func(d string) (int, bool) {
				n, ok := map[string]int{"GAS": 18, "uusdc": 6}[d]
				return n, ok
			}
			h := newEVM(cfg, open(t), nil, prometheus.NewRegistry())
			for _, c := range exportCases {
				t.Run(c.name, func(t *testing.T) {
					sep := "?"
					if strings.Contains(c.path, "?") {
						sep = "&"
					}
					rec := do(h, c.path+sep+"format=csv")
					if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/csv; charset=utf-8" || rec.Header().Get("Cache-Control") != "no-store" {
						t.Fatalf("%d %v: %s", rec.Code, rec.Header(), rec.Body)
					}
					rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
					if err != nil || len(rows) == 0 {
						t.Fatalf("not CSV: %v", err)
					}
					for _, r := range rows {
						if len(r) != len(rows[0]) {
							t.Fatalf("row of %d fields under a header of %d", len(r), len(rows[0]))
						}
					}
					testutil.Golden(t, filepath.Join("golden", c.name+".txt"), render(rec))
					// The JSON answer is cached first: an Accept: text/csv request of the same
					// URL must not be served it.
					if j := do(h, c.path); j.Code != 200 || j.Header().Get("Content-Type") != "application/json" {
						t.Fatalf("json: %d", j.Code)
					}
					req := httptest.NewRequest(http.MethodGet, "http://idx.test"+c.path, nil)
					req.Header.Set("Accept", "text/csv")
					rec2 := httptest.NewRecorder()
					h.ServeHTTP(rec2, req)
					if !bytes.Equal(rec2.Body.Bytes(), rec.Body.Bytes()) {
						t.Errorf("Accept: text/csv answers differently (%d %v):\n%s\n---\n%s", rec2.Code, rec2.Header(), rec2.Body, rec.Body)
					}
				})
			}
			for _, path := range []string{
				"/indexer/transfer/v1/transfers/by_account/" + acc1 + "?format=xml",
				"/indexer/tx/v1/txs/by_account/" + acc1 + "?format=csv&start_time=nope",
			} {
				if rec := do(h, path); rec.Code != 400 {
					t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
				}
			}
		})
	}
}
