package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rollgate/rollgate/internal/httpapi/httpapitest"
)

// samples fill the wildcards of every route with values the loaded chain answers.
var samples = map[string]string{"height": "35", "account": acc1, "tx_hash": txSend, "file": "index.html", "denom": "uusdc",
	"name": "NFT", "collection_addr": "0x6f2942cB9ADE6E9EACa3549dA2E3ec8d383ccc23", "token_id": "1"}

func TestCORSPreflightEveryRoute(t *testing.T) {
	cfg := testCfg
	cfg.CORS = httpapitest.CORS
	h := newEVM(cfg, backends(t)["sqlite"](t), nil, nil)
	httpapitest.CheckCORS(t, h, append((&server{}).routes(), httpapitest.Operational...), samples)
}

func TestMethodNotAllowedEveryRoute(t *testing.T) {
	h := newEVM(testCfg, backends(t)["sqlite"](t), nil, nil)
	httpapitest.CheckMethodNotAllowed(t, h, append((&server{}).routes(), httpapitest.Operational...), samples)
	// CORS off (the default): a preflight gets Allow, no permission.
	req := httptest.NewRequest(http.MethodOptions, "http://idx.test/status", nil)
	req.Header.Set("Origin", "https://explorer.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNoContent || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight with CORS disabled: %d %v", rec.Code, rec.Header())
	}
}
