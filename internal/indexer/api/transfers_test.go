package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/testutil"
)

const (
	erc20Contract = "0xc30c05d81ce305af3eb99f978515cbe339c470aa"
	txERC20       = "C857F91CDD7DFA093F717D3074A31F957F98CE5699CC5F7959FBB9C4CC181667"
)

// transferGoldenCases are the transfer lists over the captured minievm chain, whose transfers
// ingestion's own reading took from the txs' events (loadChain), and the time ranges of the
// tx lists.
var transferGoldenCases = []struct{ name, path string }{
	{"transfers_by_account", "/indexer/transfer/v1/transfers/by_account/" + acc1},
	{"transfers_by_account_in", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?direction=in"},
	{"transfers_by_account_out_asc_limit2", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?direction=out&pagination.reverse=false&pagination.limit=2"},
	// The next_key of the page before: the second of its transfers, at height 23
	// (store.TransferID(23, 1)).
	{"transfers_by_account_out_asc_limit2_page2", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?direction=out&pagination.reverse=false&pagination.limit=2&pagination.key=" + b64(`{"sequence":24117249}`)},
	{"transfers_by_account_denom", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?denom=uusdc"},
	{"transfers_by_account_contract", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?contract=" + erc20Contract},
	{"transfers_by_account_time_range", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=2026-11-21T09:01:51Z&end_time=2026-11-21T09:02:02Z"},
	{"transfers_by_account_time_none", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=2030-01-01T00:00:00Z"},
	{"transfers_by_account_unknown", "/indexer/transfer/v1/transfers/by_account/0x1212121212121212121212121212121212121212"},
	{"ERR_transfers_by_account_direction", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?direction=sideways"},
	{"ERR_transfers_by_account_bad", "/indexer/transfer/v1/transfers/by_account/xyz"},
	{"ERR_transfers_by_account_time", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=yesterday"},
	{"ERR_transfers_by_account_time_order", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?start_time=2026-11-21T10:00:00Z&end_time=2026-11-21T09:00:00Z"},
	{"ERR_transfers_by_account_contract", "/indexer/transfer/v1/transfers/by_account/" + acc1 + "?contract=nope"},
	{"transfers_by_denom", "/indexer/transfer/v1/transfers/by_denom/uusdc"},
	{"transfers_by_denom_evm", "/indexer/transfer/v1/transfers/by_denom/evm%2FC30C05D81CE305AF3EB99F978515CBE339C470AA?pagination.limit=3"},
	{"transfers_by_denom_contract", "/indexer/transfer/v1/transfers/by_denom/" + erc20Contract + "?pagination.limit=3&pagination.offset=2"},
	{"ERR_transfers_by_denom_bad", "/indexer/transfer/v1/transfers/by_denom/bad%20denom"},
	{"transfers_by_tx", "/indexer/transfer/v1/transfers/by_tx/" + txERC20},
	{"transfers_by_tx_none", "/indexer/transfer/v1/transfers/by_tx/" + txSend},
	{"ERR_transfers_by_tx_bad", "/indexer/transfer/v1/transfers/by_tx/zz"},
	// Time ranges on the tx lists.
	{"txs_by_account_time_range", "/indexer/tx/v1/txs/by_account/" + acc1 + "?start_time=2026-11-21T09:01:51Z&end_time=2026-11-21T09:02:02Z&pagination.limit=3"},
	{"txs_by_account_time_range_asc_offset", "/indexer/tx/v1/txs/by_account/" + acc1 + "?start_time=2026-11-21T09:01:51Z&pagination.reverse=false&pagination.limit=2&pagination.offset=1"},
	{"txs_by_account_time_none", "/indexer/tx/v1/txs/by_account/" + acc1 + "?end_time=2020-01-01T00:00:00Z"},
	{"ERR_txs_by_account_time", "/indexer/tx/v1/txs/by_account/" + acc1 + "?end_time=2026-13-01"},
	{"txs_by_account_time_offset_plus", "/indexer/tx/v1/txs/by_account/" + acc1 + "?start_time=2026-11-21T10:01:51.5+01:00&end_time=2026-11-21T09:02:02+00:00&pagination.limit=1"},
	{"ERR_evm_txs_time_order", "/indexer/tx/v1/evm-txs?start_time=2026-11-21T09:02:02Z&end_time=2026-11-21T09:01:51Z"},
}

// TestTransferGolden answers every transfer case on both backends, without the response cache
// and with it twice, from one golden file each.
func TestTransferGolden(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			noCache := testCfg
			noCache.CacheBytes = -1
			plain, cached := newEVM(noCache, db, nil, prometheus.NewRegistry()), newEVM(testCfg, db, nil, prometheus.NewRegistry())
			for _, c := range transferGoldenCases {
				t.Run(c.name, func(t *testing.T) {
					for i, h := range []http.Handler{plain, cached, cached} {
						rec := do(h, c.path)
						if !json.Valid(rec.Body.Bytes()) {
							t.Fatalf("%s: body is not JSON: %q", c.path, rec.Body.String())
						}
						if wantErr := strings.HasPrefix(c.name, "ERR_"); wantErr != (rec.Code >= 400) || rec.Code >= 500 {
							t.Errorf("%s (answer %d): status %d", c.path, i, rec.Code)
						}
						testutil.Golden(t, filepath.Join("golden", c.name+".txt"), render(rec))
					}
				})
			}
			// The 0x form of an account is the same account as its bech32 form.
			a, b := do(plain, "/indexer/transfer/v1/transfers/by_account/"+acc1), do(plain, "/indexer/transfer/v1/transfers/by_account/0x"+strings.ToUpper(acc1Hex))
			if a.Code != 200 || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
				t.Errorf("0x and bech32 forms answer differently:\n%s\n%s", a.Body, b.Body)
			}
		})
	}
}

// TestTransfersNotServed: a chain without the transfers index answers its paths with a 404.
func TestTransfersNotServed(t *testing.T) {
	h := New(Config{ChainID: "c"}, evmStub{}, nil, prometheus.NewRegistry())
	rec := do(h, "/indexer/transfer/v1/transfers/by_account/"+acc1)
	if rec.Code != 404 || !json.Valid(rec.Body.Bytes()) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}
