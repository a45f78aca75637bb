package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Etherscan actions and the parameters each reads, for the fuzzer to fill.
var esFuzzActions = []struct{ module, action string }{
	{"account", "balance"}, {"account", "balancemulti"}, {"account", "txlist"}, {"account", "txlistinternal"},
	{"account", "tokentx"}, {"account", "tokennfttx"}, {"transaction", "getstatus"}, {"transaction", "gettxreceiptstatus"},
	{"block", "getblocknobytime"}, {"block", "getblockreward"}, {"logs", "getLogs"}, {"contract", "getabi"},
	{"contract", "getsourcecode"},
}

var esFuzzParams = []string{"address", "contractaddress", "txhash", "tag", "startblock", "endblock", "fromBlock",
	"toBlock", "topic0", "topic1", "topic0_1_opr", "page", "offset", "sort", "timestamp", "closest", "blockno"}

// checkEnvelope: an /api answer is HTTP 200 with Etherscan's envelope, status "1" with OK or
// "0" with a message; a NOTOK carries its cause as a non-empty string. A store failure may
// still be a JSON 503/504 from httpapi, never a 500.
func checkEnvelope(t *testing.T, rec *httptest.ResponseRecorder, what string) {
	t.Helper()
	checkAnswer(t, rec, what)
	if rec.Code != http.StatusOK {
		return
	}
	var e struct {
		Status  *string         `json:"status"`
		Message *string         `json:"message"`
		Result  json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Status == nil || e.Message == nil || e.Result == nil {
		t.Fatalf("%s: not Etherscan's envelope: %s", what, rec.Body)
	}
	switch {
	case *e.Status == "1" && *e.Message == "OK":
	case *e.Status == "0" && *e.Message == "NOTOK":
		var cause string
		if json.Unmarshal(e.Result, &cause) != nil || cause == "" || len(cause) > 200 {
			t.Fatalf("%s: NOTOK without a cause: %s", what, rec.Body)
		}
	case *e.Status == "0" && (*e.Message == "No transactions found" || *e.Message == "No records found"):
		if string(e.Result) != "[]" {
			t.Fatalf("%s: empty answer with a result: %s", what, rec.Body)
		}
	default:
		t.Fatalf("%s: status %q message %q", what, *e.Status, *e.Message)
	}
}

// FuzzSearchAndEtherscan feeds arbitrary strings to the search route (on a chain and under
// the fleet's /all/) and to every Etherscan action's parameters: the search answers 200 or a
// JSON 400, /api always Etherscan's envelope; never a 500, never a panic. Plain `go test` runs
// the seeds; `go test -fuzz=FuzzSearchAndEtherscan ./internal/indexer/api` explores (30 s,
// 3,093 execs, nothing found when written).
func FuzzSearchAndEtherscan(f *testing.F) {
	for _, s := range []struct{ v, q string }{
		{"", ""},
		{"1", "limit=51"},
		{acc1, "limit=0"},
		{"0x" + acc1Hex, ""},
		{"0x" + strings.Repeat("ab", 32), "limit=x"},
		{strings.Repeat("ab", 32), "sort=sideways"},
		{"0x" + acc1Hex + "/7", "page=0&offset=-1"},
		{"GAS", "page=10001&offset=1"},
		{"ünïcode ärt", "startblock=-1&endblock=latest"},
		{"\x00\xff", "fromBlock=latest&toBlock=0"},
		{strings.Repeat("z", 300), "topic0=0x" + strings.Repeat("0", 64) + "&topic1=0x12&topic0_1_opr=xor"},
		{"99999999999999999999", "timestamp=99999999999999999999&closest=nearest"},
		{"-1", "tag=pending&blockno=-5"},
		{"0x" + acc1Hex + "," + "0x" + acc1Hex, "address=" + strings.Repeat("0x"+acc1Hex+",", 21)},
		{"%zz", "module=account&action=balance"},
	} {
		f.Add(s.v, s.q)
	}
	db := openLoaded(f, "sqlite:"+filepath.Join(f.TempDir(), "evm.db"))
	evm := newEVM(testCfg, db, nil, nil)
	fleet := NewFleet(FleetConfig{Chains: func() []FleetChain {
		return []FleetChain{{ID: "evm-1", VMType: "evm", AccountPrefix: "init", Base: "/evm-1", Ready: true, Reader: db, Features: evmFeatures(db)}}
	}}, nil, nil)
	f.Fuzz(func(t *testing.T, v, rawQuery string) {
		sq := "q=" + url.QueryEscape(v) + "&" + rawQuery
		for path, h := range map[string]http.Handler{"/indexer/search/v1": evm, "/all/indexer/search/v1": fleet} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, request(path, "", sq))
			checkAnswer(t, rec, path+"?"+sq)
			if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
				t.Fatalf("%s?%s: status %d", path, sq, rec.Code)
			}
		}
		rec := httptest.NewRecorder()
		evm.ServeHTTP(rec, request("/api", "", rawQuery))
		checkEnvelope(t, rec, "/api?"+rawQuery)
		for _, a := range esFuzzActions {
			for _, p := range esFuzzParams {
				q := url.Values{"module": {a.module}, "action": {a.action}, p: {v}}.Encode() + "&" + rawQuery
				rec := httptest.NewRecorder()
				evm.ServeHTTP(rec, request("/api", "", q))
				checkEnvelope(t, rec, "/api?"+q)
			}
		}
	})
}

// TestEtherscanErrors: each malformed parameter answers Etherscan's envelope with the exact
// cause (Etherscan's own wording where its documentation gives one), HTTP 200.
func TestEtherscanErrors(t *testing.T) {
	db := openLoaded(t, "sqlite:"+filepath.Join(t.TempDir(), "evm.db"))
	h := newEVM(testCfg, db, nil, nil)
	a := "0x" + acc1Hex
	for _, c := range []struct{ q, status, message, result string }{
		{"", "0", "NOTOK", "Error! Missing Or invalid Module name"},
		{"module=proxy&action=eth_blockNumber", "0", "NOTOK", "Error! Missing Or invalid Module name"},
		{"module=account", "0", "NOTOK", "Error! Missing Or invalid Action name"},
		{"module=account&action=balance&address=init1xyz", "0", "NOTOK", "Error! Invalid address format"},
		{"module=account&action=balance&address=" + a + "&tag=earliest", "0", "NOTOK", "Error! Invalid tag, only latest is supported"},
		{"module=account&action=balancemulti&address=" + strings.TrimSuffix(strings.Repeat(a+",", 21), ","), "0", "NOTOK", "Error! Too many addresses, at most 20"},
		{"module=account&action=txlist&address=" + a + "&page=101&offset=100", "0", "NOTOK", "Result window is too large, PageNo x Offset size must be less than or equal to 10000"},
		{"module=account&action=txlist&address=" + a + "&sort=up", "0", "NOTOK", "Error! Invalid sort order, use asc or desc"},
		{"module=account&action=txlist&address=" + a + "&startblock=x", "0", "NOTOK", "Error! Invalid block number"},
		{"module=account&action=txlist&address=" + a + "&page=-1", "0", "NOTOK", "Error! Invalid page or offset"},
		{"module=account&action=tokentx", "0", "NOTOK", "Error! Invalid address format"},
		{"module=account&action=txlistinternal&txhash=0x12", "0", "NOTOK", "Error! Invalid transaction hash"},
		{"module=transaction&action=getstatus&txhash=zz", "0", "NOTOK", "Error! Invalid transaction hash"},
		{"module=block&action=getblocknobytime&timestamp=soon&closest=before", "0", "NOTOK", "Error! Invalid timestamp"},
		{"module=block&action=getblocknobytime&timestamp=1&closest=near", "0", "NOTOK", "Error! Invalid closest, use before or after"},
		{"module=block&action=getblocknobytime&timestamp=1&closest=before", "0", "NOTOK", "Error! No closest block found"},
		{"module=block&action=getblocknobytime&timestamp=99999999999&closest=after", "0", "NOTOK", "Error! No closest block found"},
		{"module=block&action=getblockreward&blockno=0", "0", "NOTOK", "Error! Invalid block number"},
		{"module=block&action=getblockreward&blockno=999999", "0", "NOTOK", "Error! Block not found"},
		{"module=logs&action=getLogs&fromBlock=1&toBlock=latest", "0", "NOTOK", "Error! Missing address or topic"},
		{"module=logs&action=getLogs&topic0=0x12", "0", "NOTOK", "Error! Invalid topic"},
		{"module=logs&action=getLogs&topic0=0x" + strings.Repeat("0", 64) + "&topic1=0x" + strings.Repeat("1", 64) + "&topic0_1_opr=xor", "0", "NOTOK", "Error! Invalid topic operator, use and or or"},
		{"module=contract&action=getabi&address=" + a, "0", "NOTOK", "Contract source code not verified"},
		{"module=contract&action=getabi&address=0x12", "0", "NOTOK", "Error! Invalid address format"},
		// Without a JSON-RPC endpoint the actions that read the chain say so.
		{"module=account&action=balance&address=" + a, "0", "NOTOK", "Error! This rollgate has no JSON-RPC endpoint for this action (--json-rpc-url)"},
	} {
		rec := do(h, "/api?"+c.q)
		var e struct{ Status, Message, Result string }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Status != c.status || e.Message != c.message || e.Result != c.result {
			t.Errorf("%s: %d %s, want %s %s %q", c.q, rec.Code, rec.Body, c.status, c.message, c.result)
		}
	}
	// An empty list is Etherscan's "nothing found" envelope, not an error.
	rec := do(h, "/api?module=account&action=txlist&address=0x"+strings.Repeat("9", 40))
	if got := strings.TrimSpace(rec.Body.String()); got != `{"status":"0","message":"No transactions found","result":[]}` {
		t.Errorf("txlist of an unknown address: %s", got)
	}
	// A chain without the Etherscan part has no /api.
	if rec := do(New(Config{ChainID: "move-1"}, db, nil, nil), "/api?module=account&action=balance"); rec.Code != http.StatusNotFound {
		t.Errorf("/api on a chain without it: %d", rec.Code)
	}
}

// TestEtherscanContractABIs: an ABI directory's files (an ABI array, a Hardhat/Foundry
// artifact) answer getabi and getsourcecode; anything else in it is an error at start-up.
func TestEtherscanContractABIs(t *testing.T) {
	dir := t.TempDir()
	const abi = `[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`
	a1, a2 := "0x"+strings.Repeat("a", 40), "0x"+strings.Repeat("B", 40)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a1+".json", abi)
	write(a2+".json", `{"contractName":"Token","abi":`+abi+`,"bytecode":"0x00"}`)
	write("README.txt", "not an ABI")
	abis, err := LoadABIs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fn := abis[a1].functions["0xa9059cbb"]; fn != "transfer(address to, uint256 amount)" {
		t.Errorf("functionName of transfer's selector: %q", fn)
	}
	db := openLoaded(t, "sqlite:"+filepath.Join(t.TempDir(), "evm.db"))
	cfg := testCfg
	cfg.Features = evmFeatures(db)
	cfg.Features.Etherscan.ABIs = abis
	h := New(cfg, db, nil, nil)
	rec := do(h, "/api?module=contract&action=getabi&address="+strings.ToUpper(a1[:2])+a1[2:])
	if got := strings.TrimSpace(rec.Body.String()); got != `{"status":"1","message":"OK","result":`+jsonString(abi)+`}` {
		t.Errorf("getabi: %s", got)
	}
	var src struct {
		Status string
		Result []map[string]string
	}
	if err := json.Unmarshal(do(h, "/api?module=contract&action=getsourcecode&address="+strings.ToLower(a2)).Body.Bytes(), &src); err != nil || src.Status != "1" || len(src.Result) != 1 ||
		src.Result[0]["ABI"] != abi || src.Result[0]["ContractName"] != "Token" || src.Result[0]["SourceCode"] != "" {
		t.Errorf("getsourcecode of an artifact: %+v %v", src, err)
	}
	if err := json.Unmarshal(do(h, "/api?module=contract&action=getsourcecode&address=0x"+strings.Repeat("c", 40)).Body.Bytes(), &src); err != nil || src.Status != "1" ||
		src.Result[0]["ABI"] != "Contract source code not verified" || src.Result[0]["LicenseType"] != "Unknown" {
		t.Errorf("getsourcecode unverified: %+v %v", src, err)
	}
	for name, body := range map[string]string{"0x12.json": abi, a1 + ".json": `{"abi":{}}`} {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadABIs(bad); err == nil {
			t.Errorf("LoadABIs accepted %s: %s", name, body)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
