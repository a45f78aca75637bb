package devnet_test

import (
	"encoding/json"
	stdnet "net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/httpapi"
)

// kitChain is what InterwovenKit reads of a chains.json entry
// (packages/interwovenkit-react/src/data/chains.ts normalizeChain: the first rpc, rest and
// indexer address, json-rpc on minievm, metadata.is_l1, metadata.assetlist; data/fee.ts reads
// fees.fee_tokens of a rollup).
type kitChain struct {
	ChainID     string `json:"chain_id"`
	NetworkType string `json:"network_type"`
	APIs        map[string][]struct {
		Address string `json:"address"`
	} `json:"apis"`
	Fees struct {
		FeeTokens []struct {
			Denom            string `json:"denom"`
			FixedMinGasPrice any    `json:"fixed_min_gas_price"`
		} `json:"fee_tokens"`
	} `json:"fees"`
	Metadata struct {
		IsL1      bool   `json:"is_l1"`
		Assetlist string `json:"assetlist"`
		Minitia   *struct {
			Type string `json:"type"`
		} `json:"minitia"`
	} `json:"metadata"`
}

// kitDecimals is InterwovenKit's decimals of an asset (data/assets.ts normalizeAsset): the
// exponent of the display unit, else of the base unit, else of the first.
func kitDecimals(units []struct {
	Denom    string `json:"denom"`
	Exponent int    `json:"exponent"`
}, base, display string) int {
	for _, u := range units {
		if u.Denom == display {
			return u.Exponent
		}
	}
	for _, u := range units {
		if u.Denom == base {
			return u.Exponent
		}
	}
	if len(units) > 0 {
		return units[0].Exponent
	}
	return 0
}

// TestRegistryOverHTTP: the registry served over HTTP is what InterwovenKit needs from a
// registryUrl: chains.json with the L1 and every rollup, each with an rpc, rest and indexer
// address (the kit throws on a chain without one), a minievm json-rpc, fee tokens, an http
// assetlist that answers; profiles.json; every chain's chain.json and assetlist.json; and
// token decimals a wallet reads right (GAS at 18, the micro denoms at 6). A browser on
// another origin may read it.
func TestRegistryOverHTTP(t *testing.T) {
	cfg := devnet.DefaultConfig()
	cfg.ManualBlocks, cfg.GenesisTime = true, genesis
	cfg.CORS = httpapi.CORS{Enabled: true}
	net, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	indexers := map[string]string{}
	for _, c := range net.Chains() {
		indexers[c.ID()] = "http://indexer.test/" + c.ID()
	}
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := net.RegistryHandler("http://"+ln.Addr().String()+"/", indexers)
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Start()
	t.Cleanup(srv.Close)

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/chains.json", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var chains []kitChain
	err = json.NewDecoder(resp.Body).Decode(&chains)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("chains.json: %d %v, CORS %q", resp.StatusCode, err, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if len(chains) != 4 {
		t.Fatalf("chains.json lists %d chains, want the L1 and three rollups", len(chains))
	}
	l1s := 0
	for _, c := range chains {
		for _, api := range []string{"rpc", "rest", "indexer"} {
			if len(c.APIs[api]) == 0 || c.APIs[api][0].Address == "" {
				t.Errorf("%s: no %s address", c.ChainID, api)
			}
		}
		if c.APIs["indexer"][0].Address != indexers[c.ChainID] {
			t.Errorf("%s indexer %v", c.ChainID, c.APIs["indexer"])
		}
		if c.Metadata.Minitia != nil && c.Metadata.Minitia.Type == "minievm" && len(c.APIs["json-rpc"]) == 0 {
			t.Errorf("%s: a minievm chain without json-rpc", c.ChainID)
		}
		if c.Metadata.IsL1 {
			l1s++
		}
		// "testnet" is the only value for which the kit reads balances from the chain, not
		// from Minity and the DEX/VIP APIs a devnet lacks.
		if c.NetworkType != "testnet" {
			t.Errorf("%s network_type %q, want testnet", c.ChainID, c.NetworkType)
		}
		if len(c.Fees.FeeTokens) == 0 || c.Fees.FeeTokens[0].FixedMinGasPrice == nil {
			t.Errorf("%s fee tokens %+v", c.ChainID, c.Fees)
		}
		if !strings.HasPrefix(c.Metadata.Assetlist, srv.URL+"/") {
			t.Fatalf("%s assetlist %q", c.ChainID, c.Metadata.Assetlist)
		}
		code, body := get(t, c.Metadata.Assetlist)
		var list struct {
			Assets []struct {
				Base       string `json:"base"`
				Display    string `json:"display"`
				Symbol     string `json:"symbol"`
				DenomUnits []struct {
					Denom    string `json:"denom"`
					Exponent int    `json:"exponent"`
				} `json:"denom_units"`
			} `json:"assets"`
		}
		if err := json.Unmarshal(body, &list); code != 200 || err != nil || len(list.Assets) == 0 {
			t.Fatalf("%s assetlist: %d %s", c.ChainID, code, body)
		}
		for _, a := range list.Assets {
			d := kitDecimals(a.DenomUnits, a.Base, a.Display)
			want := 6
			if a.Base == "GAS" || strings.HasPrefix(a.Base, "evm/") {
				want = 18
			}
			if d != want {
				t.Errorf("%s %s (%s): a wallet reads %d decimals, want %d", c.ChainID, a.Base, a.Symbol, d, want)
			}
		}
	}
	if l1s != 1 {
		t.Errorf("%d L1s in chains.json", l1s)
	}
	code, body := get(t, srv.URL+"/profiles.json")
	var profiles []struct{ ChainID, Name, PrettyName string }
	if err := json.Unmarshal(body, &profiles); code != 200 || err != nil || len(profiles) != 4 {
		t.Errorf("profiles.json: %d %s", code, body)
	}
	for _, name := range []string{"initia", "minievm", "cosmoshub", "ethereum-devnet"} {
		for _, f := range []string{"chain.json", "assetlist.json"} {
			if code, body := get(t, srv.URL+"/"+name+"/"+f); code != 200 || !json.Valid(body) {
				t.Errorf("%s/%s: %d", name, f, code)
			}
		}
	}
	if code, body := get(t, srv.URL+"/nope.json"); code != 404 || !json.Valid(body) {
		t.Errorf("unknown file: %d %s", code, body)
	}
	if code, body := post(t, srv.URL+"/chains.json", nil); code != 405 || !json.Valid(body) {
		t.Errorf("POST: %d %s", code, body)
	}
}
