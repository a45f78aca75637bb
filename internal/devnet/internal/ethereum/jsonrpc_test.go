package ethereum

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

var t0 = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// testChain is a chain with one funded key holding a token, after two blocks that each
// carry one token transfer (to b, then to c).
func testChain(t *testing.T) (*Chain, *ERC20, common.Address, common.Address) {
	t.Helper()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	from := crypto.PubkeyToAddress(key.PublicKey)
	tok := &ERC20{Address: common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"), Name: "Tether USD", Symbol: "USDT", Decimals: 6,
		Genesis: map[common.Address]*big.Int{from: big.NewInt(1000)}}
	c, err := New(Config{ChainID: 31337, GenesisTime: t0, Accounts: map[common.Address]*big.Int{from: big.NewInt(1e18)},
		Contracts: map[common.Address]Contract{tok.Address: tok}})
	if err != nil {
		t.Fatal(err)
	}
	b, cc := common.HexToAddress("0xb0"), common.HexToAddress("0xc0")
	for i, to := range []common.Address{b, cc} {
		in, _ := ERC20ABI.Pack("transfer", to, big.NewInt(10))
		tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{ChainID: big.NewInt(31337),
			Nonce: uint64(i), GasFeeCap: big.NewInt(2e9), Gas: 100_000, To: &tok.Address, Data: in})
		if _, err := c.Submit(tx); err != nil {
			t.Fatal(err)
		}
		c.ProduceBlock(t0.Add(time.Duration(i+1) * time.Second))
	}
	return c, tok, b, cc
}

func rpc(t *testing.T, url, body string) map[string]any {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestJSONRPCAnswers(t *testing.T) {
	c, tok, b, _ := testChain(t)
	srv := httptest.NewServer(NewJSONRPC(c, nil))
	defer srv.Close()
	transfer := TopicTransfer.Hex()
	bTopic := common.BytesToHash(b.Bytes()).Hex()
	balCall, _ := ERC20ABI.Pack("balanceOf", b)
	cases := []struct {
		name, params, method string
		result               string // the result as JSON ("" when an error is wanted)
		errCode              float64
	}{
		{"chain id", `[]`, "eth_chainId", `"0x7a69"`, 0},
		{"height", `[]`, "eth_blockNumber", `"0x2"`, 0},
		{"gas price is the base fee", `[]`, "eth_gasPrice", `"0x3b9aca00"`, 0},
		{"logs of every block", `[{"fromBlock":"0x0","toBlock":"latest","address":"` + tok.Address.Hex() + `"}]`, "eth_getLogs", "count:2", 0},
		{"logs by topic", `[{"fromBlock":"earliest","topics":["` + transfer + `",null,"` + bTopic + `"]}]`, "eth_getLogs", "count:1", 0},
		{"logs by topic alternatives", `[{"fromBlock":"0x1","toBlock":"0x2","topics":[["` + transfer + `","0x` + strings.Repeat("01", 32) + `"]]}]`, "eth_getLogs", "count:2", 0},
		{"logs of one block by default", `[{}]`, "eth_getLogs", "count:1", 0},
		{"log range limit", `[{"fromBlock":"0x0","toBlock":"0x2711"}]`, "eth_getLogs", "", -32005},
		{"token balance", `[{"to":"` + tok.Address.Hex() + `","data":"` + hexutil.Encode(balCall) + `"},"latest"]`, "eth_call", `"0x000000000000000000000000000000000000000000000000000000000000000a"`, 0},
		{"balance at genesis", `[{"to":"` + tok.Address.Hex() + `","data":"` + hexutil.Encode(balCall) + `"},"0x0"]`, "eth_call", `"0x0000000000000000000000000000000000000000000000000000000000000000"`, 0},
		{"revert", `[{"to":"` + tok.Address.Hex() + `","data":"0xdeadbeef"}]`, "eth_call", "", 3},
		{"future block", `["0x9",false]`, "eth_getBlockByNumber", `null`, 0},
		{"unknown receipt", `["0x` + strings.Repeat("00", 32) + `"]`, "eth_getTransactionReceipt", `null`, 0},
		{"contract code", `["` + tok.Address.Hex() + `","latest"]`, "eth_getCode", `"0xfe"`, 0},
		{"bad address", `["zz"]`, "eth_getBalance", "", -32602},
		{"unknown method", `[]`, "eth_mine", "", -32601},
		{"not a transaction", `["0x01"]`, "eth_sendRawTransaction", "", -32000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := rpc(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"`+tc.method+`","params":`+tc.params+`}`)
			if out["id"] != float64(7) {
				t.Fatalf("id %v", out["id"])
			}
			if tc.errCode != 0 {
				e, _ := out["error"].(map[string]any)
				if e == nil || e["code"] != tc.errCode {
					t.Fatalf("want error %v, got %v", tc.errCode, out)
				}
				return
			}
			if _, ok := out["result"]; !ok {
				t.Fatalf("no result: %v", out)
			}
			if n, ok := strings.CutPrefix(tc.result, "count:"); ok {
				l, _ := out["result"].([]any)
				if want := map[string]int{"1": 1, "2": 2}[n]; len(l) != want {
					t.Fatalf("%d logs, want %d: %v", len(l), want, out)
				}
				return
			}
			got, _ := json.Marshal(out["result"])
			if string(got) != tc.result {
				t.Fatalf("result %s, want %s", got, tc.result)
			}
		})
	}
	// A batch answers each request in order.
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"net_version"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var batch []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&batch); err != nil || len(batch) != 2 || batch[1]["result"] != "31337" {
		t.Fatalf("batch %v %v", batch, err)
	}
}

// TestRevertedTxKeepsNothing: a reverting call is mined with status 0, pays its gas and
// moves its nonce, and leaves the token state and logs as they were.
func TestRevertedTxKeepsNothing(t *testing.T) {
	c, tok, b, _ := testChain(t)
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	from := crypto.PubkeyToAddress(key.PublicKey)
	in, _ := ERC20ABI.Pack("transfer", b, big.NewInt(1_000_000)) // more than it holds
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(big.NewInt(31337)), &types.LegacyTx{Nonce: 2, GasPrice: big.NewInt(1e9), Gas: 100_000, To: &tok.Address, Data: in})
	before, _ := c.StateAt(c.Height())
	ethBefore := before.Balance(from)
	if _, err := c.Submit(tx); err != nil {
		t.Fatal(err)
	}
	blk := c.ProduceBlock(t0.Add(3 * time.Second))
	r := blk.Receipts[0]
	after, _ := c.StateAt(c.Height())
	fee := new(big.Int).Mul(big.NewInt(1e9), new(big.Int).SetUint64(r.GasUsed))
	if r.Status != 0 || len(r.Logs) != 0 || after.Nonce(from) != 3 || tok.BalanceOf(after, b).Int64() != 10 ||
		new(big.Int).Sub(ethBefore, after.Balance(from)).Cmp(fee) != 0 {
		t.Fatalf("status %d logs %d nonce %d balance %s fee paid %s of %s", r.Status, len(r.Logs), after.Nonce(from), tok.BalanceOf(after, b),
			new(big.Int).Sub(ethBefore, after.Balance(from)), fee)
	}
}
