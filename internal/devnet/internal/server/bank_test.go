package server_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/server"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"
)

var _ server.MetadataSource = (*wasm.Module)(nil)

// TestBankDenomRoutes: supply/by_denom and denoms_metadata_by_query_string answer at the
// height of x-cosmos-block-height, as x/bank does: a tokenfactory denom has its supply and
// default metadata once created; before that (and for a denom nobody created) the supply is
// 0 and the metadata NotFound.
func TestBankDenomRoutes(t *testing.T) {
	mod := wasm.New()
	e12 := big.NewInt(1_000_000_000_000)
	c, err := engine.New(engine.Config{ChainID: "miniwasm-devnet-1", Kind: engine.KindWasm, Seed: 3, NumAccounts: 4,
		AccountCoins: []sim.Coin{{Denom: "umin", Amount: e12}, {Denom: "uusdc", Amount: e12}},
		Modules:      []sim.Module{mod}, Bank: wasm.BankFlavor{}})
	if err != nil {
		t.Fatal(err)
	}
	// the block that created the first factory denom, and the denom
	var created int64
	var denom string
	for h := 0; h < 60 && denom == ""; h++ {
		b, err := c.ProduceBlock()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results {
			for _, e := range r.Events {
				for _, a := range e.Attributes {
					if e.Type == "create_denom" && a.Key == "new_token_denom" && r.Code == 0 {
						created, denom = b.Height, a.Value
					}
				}
			}
		}
	}
	if denom == "" {
		t.Fatal("no tokenfactory denom in 60 blocks")
	}
	for range 3 {
		if _, err := c.ProduceBlock(); err != nil {
			t.Fatal(err)
		}
	}
	q, err := c.Query(c.Height())
	if err != nil {
		t.Fatal(err)
	}
	supplyNow := "0"
	for _, co := range engine.Supply(q) {
		if co.Denom == denom {
			supplyNow = co.Amount.String()
		}
	}
	h := server.NewREST(c, []sim.Module{mod}, nil)
	esc := url.QueryEscape(denom)
	meta := `{"metadata":{"description":"","denom_units":[{"denom":"` + denom + `","exponent":0,"aliases":[]}],"base":"` + denom +
		`","display":"` + denom + `","name":"` + denom + `","symbol":"` + denom + `","uri":"","uri_hash":""}}`
	for _, tc := range []struct {
		name, path string
		height     int64
		status     int
		body       string
	}{
		{"supply", "/cosmos/bank/v1beta1/supply/by_denom?denom=" + esc, 0, 200, `{"amount":{"denom":"` + denom + `","amount":"` + supplyNow + `"}}`},
		{"supply before creation", "/cosmos/bank/v1beta1/supply/by_denom?denom=" + esc, created - 1, 200, `{"amount":{"denom":"` + denom + `","amount":"0"}}`},
		{"supply of the fee denom", "/cosmos/bank/v1beta1/supply/by_denom?denom=umin", 0, 200, ""},
		{"supply of an unknown denom", "/cosmos/bank/v1beta1/supply/by_denom?denom=nope", 0, 200, `{"amount":{"denom":"nope","amount":"0"}}`},
		{"supply without denom", "/cosmos/bank/v1beta1/supply/by_denom", 0, 400, `{"code":3, "message":"invalid denom", "details":[]}`},
		{"supply at a future height", "/cosmos/bank/v1beta1/supply/by_denom?denom=umin", c.Height() + 5, 500, ""},
		{"metadata", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom=" + esc, 0, 200, meta},
		{"metadata at creation", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom=" + esc, created, 200, meta},
		{"metadata before creation", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom=" + esc, created - 1, 404,
			`{"code":5, "message":"client metadata for denom ` + denom + `", "details":[]}`},
		{"metadata of the fee denom", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom=umin", 0, 404,
			`{"code":5, "message":"client metadata for denom umin", "details":[]}`},
		{"metadata without denom", "/cosmos/bank/v1beta1/denoms_metadata_by_query_string", 0, 400, `{"code":3, "message":"invalid denom", "details":[]}`},
		{"metadata list", "/cosmos/bank/v1beta1/denoms_metadata", 0, 200, ""},
		{"metadata list before creation", "/cosmos/bank/v1beta1/denoms_metadata", created - 1, 200, `{"metadatas":[],"pagination":{"next_key":null,"total":"0"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.height > 0 {
				req.Header.Set("x-cosmos-block-height", strconv.FormatInt(tc.height, 10))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("not JSON: %s", rec.Body)
			}
			if tc.body != "" && rec.Body.String() != tc.body {
				t.Errorf("body\n%s\nwant\n%s", rec.Body, tc.body)
			}
		})
	}
}
