package devnet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/jsonshape"
)

// evmShapes are the structural comparison rules for the devnet's chains against minievm and
// miniwasm captures: bech32 means the "init" prefix, and where the real chain only ever had
// "" any string fits.
var evmShapes = jsonshape.Options{Bech32HRP: "init", EmptyMeansAnyString: true}

func shapeOf(t *testing.T, docs [][]byte) *jsonshape.Shape {
	t.Helper()
	return jsonshape.Of(t, evmShapes, docs)
}

// compareShapes checks that every path of the devnet's documents exists in the real chain's,
// with compatible kinds and with a key order the real chain used.
func compareShapes(t *testing.T, name string, real, got *jsonshape.Shape) {
	t.Helper()
	for _, p := range jsonshape.Diff(name, real, got, nil) {
		t.Error(p)
	}
}

// TestShapesMatchRealMinievm drives the EVM rollup over HTTP and compares every response kind
// with what a real minievm node served: same keys in the same order, same JSON kinds and
// encodings, and the same events with the same attribute keys in the same order.
func TestShapesMatchRealMinievm(t *testing.T) {
	fx := testutil.Fixture(t, "minievm")
	const blocks = 60
	net := startNet(t, 3, blocks, devnet.ChainSpec{ChainID: "minievm-devnet-1", Kind: devnet.KindEVM})
	e := net.Endpoints()["minievm-devnet-1"]
	ch, _ := net.Chain("minievm-devnet-1")

	type kind struct {
		name    string
		fixture string
		fetch   func(h int64) []byte
	}
	rpc := func(method string, params ...any) []byte {
		_, b := post(t, e.JSONRPC, rpcBody(method, params...))
		return b
	}
	hexH := func(h int64) string { return fmt.Sprintf("0x%x", h) }
	kinds := []kind{
		{"comet block", "comet/block/*.json", func(h int64) []byte { _, b := get(t, fmt.Sprintf("%s/block?height=%d", e.RPC, h)); return b }},
		{"comet block_results", "comet/block_results/*.json", func(h int64) []byte {
			_, b := get(t, fmt.Sprintf("%s/block_results?height=%d", e.RPC, h))
			return b
		}},
		{"rest txs by block", "rest/txs_block/*.json", func(h int64) []byte {
			_, b := get(t, fmt.Sprintf("%s/cosmos/tx/v1beta1/txs/block/%d?pagination.limit=100", e.REST, h))
			return b
		}},
		{"eth_getBlockByNumber", "evm/eth_getBlockByNumber_full/*.json", func(h int64) []byte { return rpc("eth_getBlockByNumber", hexH(h), true) }},
		{"eth_getBlockReceipts", "evm/eth_getBlockReceipts/*.json", func(h int64) []byte { return rpc("eth_getBlockReceipts", hexH(h)) }},
		{"callTracer", "evm/debug_traceBlockByNumber_callTracer/*.json", func(h int64) []byte {
			return rpc("debug_traceBlockByNumber", hexH(h), map[string]string{"tracer": "callTracer"})
		}},
	}
	got := map[string][][]byte{}
	for _, k := range kinds {
		var docs [][]byte
		for h := int64(1); h <= blocks+1; h++ {
			docs = append(docs, k.fetch(h))
		}
		got[k.name] = docs
		compareShapes(t, k.name, shapeOf(t, jsonshape.ReadGlob(t, fx, k.fixture)), shapeOf(t, docs))
	}

	// per-tx endpoints, for every tx of the devnet's blocks
	var cometTx, restTx, ethTx, ethRcpt, ethTrace, cosmosHash [][]byte
	for h := int64(1); h <= blocks+1; h++ {
		b, err := ch.Engine().Block(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range b.TxHashes {
			_, cb := get(t, fmt.Sprintf("%s/tx?hash=0x%X", e.RPC, th[:]))
			cometTx = append(cometTx, cb)
			_, rb := get(t, fmt.Sprintf("%s/cosmos/tx/v1beta1/txs/%X", e.REST, th[:]))
			restTx = append(restTx, rb)
		}
		var blk struct {
			Result struct {
				Transactions []string `json:"transactions"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rpc("eth_getBlockByNumber", hexH(h), false), &blk); err != nil {
			t.Fatal(err)
		}
		for _, eh := range blk.Result.Transactions {
			ethTx = append(ethTx, rpc("eth_getTransactionByHash", eh))
			ethRcpt = append(ethRcpt, rpc("eth_getTransactionReceipt", eh))
			ethTrace = append(ethTrace, rpc("debug_traceTransaction", eh, map[string]string{"tracer": "callTracer"}))
			cosmosHash = append(cosmosHash, rpc("cosmos_cosmosTxHashByTxHash", eh))
		}
	}
	compareShapes(t, "comet tx", shapeOf(t, jsonshape.ReadGlob(t, fx, "comet/tx/*.json")), shapeOf(t, cometTx))
	compareShapes(t, "rest tx", shapeOf(t, jsonshape.ReadGlob(t, fx, "rest/tx/*.json")), shapeOf(t, restTx))
	compareShapes(t, "eth tx", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/eth_getTransactionByHash/*.json")), shapeOf(t, ethTx))
	compareShapes(t, "eth receipt", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/eth_getTransactionReceipt/*.json")), shapeOf(t, ethRcpt))
	compareShapes(t, "eth trace", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/debug_traceTransaction_callTracer/*.json")), shapeOf(t, ethTrace))
	compareShapes(t, "cosmos tx hash", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/cosmos_cosmosTxHashByTxHash/*.json")), shapeOf(t, cosmosHash))

	// single documents
	acc := ch.Engine().Accounts()[1]
	singles := []struct {
		name, fixture string
		doc           []byte
	}{
		{"status", "comet/status.json", func() []byte { _, b := get(t, e.RPC+"/status"); return b }()},
		{"validators", "comet/validators_h1.json", func() []byte { _, b := get(t, e.RPC+"/validators?height=1"); return b }()},
		{"abci_info", "comet/abci_info.json", func() []byte { _, b := get(t, e.RPC+"/abci_info"); return b }()},
		{"opchild validators", "rest/misc/opchild_validators.json", func() []byte { _, b := get(t, e.REST+"/opinit/opchild/v1/validators"); return b }()},
		{"opchild validator", "rest/misc/opchild_validator.json", func() []byte {
			st, b := get(t, e.REST+"/opinit/opchild/v1/validators")
			var v struct {
				Validators []struct {
					Op string `json:"operator_address"`
				} `json:"validators"`
			}
			if st != 200 || json.Unmarshal(b, &v) != nil || len(v.Validators) != 1 {
				t.Fatalf("validators: %s", b)
			}
			_, b = get(t, e.REST+"/opinit/opchild/v1/validator/"+v.Validators[0].Op)
			return b
		}()},
		{"denoms metadata", "rest/misc/bank_denoms_metadata.json", func() []byte { _, b := get(t, e.REST+"/cosmos/bank/v1beta1/denoms_metadata"); return b }()},
		{"supply", "rest/misc/bank_supply.json", func() []byte { _, b := get(t, e.REST+"/cosmos/bank/v1beta1/supply"); return b }()},
		{"accounts", "rest/misc/accounts_limit100*.json", func() []byte { _, b := get(t, e.REST+"/cosmos/auth/v1beta1/accounts?pagination.limit=100"); return b }()},
		{"module accounts", "rest/misc/module_accounts.json", func() []byte { _, b := get(t, e.REST+"/cosmos/auth/v1beta1/module_accounts"); return b }()},
		{"erc20 factory", "rest/misc/erc20_factory.json", func() []byte { _, b := get(t, e.REST+"/minievm/evm/v1/contracts/erc20_factory"); return b }()},
		{"evm params", "rest/misc/evm_params.json", func() []byte { _, b := get(t, e.REST+"/minievm/evm/v1/params"); return b }()},
		{"tokenURI call", "rest/misc/evm_call_tokenURI_*.json", func() []byte {
			_, b := post(t, e.REST+"/minievm/evm/v1/call", map[string]string{"sender": "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d", "contract_addr": ch.EVMModule().Factory().Hex(), "input": "0x06fdde03", "value": "0"})
			return b
		}()},
		{"block future", "comet/errors/block_future.json", func() []byte { _, b := get(t, e.RPC+"/block?height=100000"); return b }()},
		{"block_results future", "comet/errors/block_results_future.json", func() []byte { _, b := get(t, e.RPC+"/block_results?height=100000"); return b }()},
		{"tx unknown", "comet/errors/tx_unknown.json", func() []byte { _, b := get(t, e.RPC+"/tx?hash=0x"+strings.Repeat("AB", 32)); return b }()},
		{"rest tx unknown", "rest/errors/tx_unknown.json", func() []byte { _, b := get(t, e.REST+"/cosmos/tx/v1beta1/txs/"+strings.Repeat("AB", 32)); return b }()},
		{"rest txs future", "rest/errors/txs_block_future.json", func() []byte { _, b := get(t, e.REST+"/cosmos/tx/v1beta1/txs/block/100000"); return b }()},
		{"blocks latest", "rest/misc/blocks_latest.json", func() []byte { _, b := get(t, e.REST+"/cosmos/base/tendermint/v1beta1/blocks/latest"); return b }()},
		{"node_info", "rest/misc/node_info.json", func() []byte { _, b := get(t, e.REST+"/cosmos/base/tendermint/v1beta1/node_info"); return b }()},
		{"balances", "rest/misc/balances_acc1.json", func() []byte { _, b := get(t, e.REST+"/cosmos/bank/v1beta1/balances/"+acc.Bech32); return b }()},
		{"by_denom", "rest/misc/contract_by_denom_GAS.json", func() []byte { _, b := get(t, e.REST+"/minievm/evm/v1/contracts/by_denom?denom=GAS"); return b }()},
		{"eth_chainId", "evm/misc/eth_chainId.json", rpc("eth_chainId")},
		{"eth_blockNumber", "evm/misc/eth_blockNumber.json", rpc("eth_blockNumber")},
		{"eth_getBalance", "evm/misc/eth_getBalance_acc1.json", rpc("eth_getBalance", "0x"+fmt.Sprintf("%x", acc.Addr), "latest")},
		{"eth_getTransactionCount", "evm/misc/eth_getTransactionCount_acc1.json", rpc("eth_getTransactionCount", "0x"+fmt.Sprintf("%x", acc.Addr), "latest")},
		{"eth block future", "evm/errors/eth_getBlockByNumber_future.json", rpc("eth_getBlockByNumber", "0x186a0", true)},
		{"eth receipts future", "evm/errors/eth_getBlockReceipts_future.json", rpc("eth_getBlockReceipts", "0x186a0")},
		{"trace future", "evm/errors/debug_traceBlockByNumber_future.json", rpc("debug_traceBlockByNumber", "0x186a0", map[string]string{"tracer": "callTracer"})},
		{"eth receipt unknown", "evm/errors/eth_getTransactionReceipt_unknown.json", rpc("eth_getTransactionReceipt", "0x"+strings.Repeat("ab", 32))},
	}
	for _, s := range singles {
		compareShapes(t, s.name, shapeOf(t, jsonshape.ReadGlob(t, fx, s.fixture)), shapeOf(t, [][]byte{s.doc}))
	}

	// events: every event type the real chain emitted, with each of its attribute key
	// sequences, and nothing the real chain would not emit
	real := jsonshape.BlockResultVariants(t, jsonshape.ReadGlob(t, fx, "comet/block_results/*.json"), jsonshape.EventOptions{FoldLog: true})
	mine := jsonshape.BlockResultVariants(t, got["comet block_results"], jsonshape.EventOptions{FoldLog: true})
	for typ, variants := range real {
		for v := range variants {
			if !mine[typ][v] {
				t.Errorf("event %s with attribute keys [%s] never emitted by the devnet (it emitted %v)", typ, v, jsonshape.Sorted(mine[typ]))
			}
		}
	}
	for typ, variants := range mine {
		for v := range variants {
			if !real[typ][v] {
				t.Errorf("devnet event %s [%s] is not one the real chain emits (%v)", typ, v, jsonshape.Sorted(real[typ]))
			}
		}
	}
}

// TestShapesPlainBankMatchRealMiniwasm: a chain with the plain x/bank flavour (what miniwasm
// and other SDK chains emit) against a real miniwasm node: response shapes, and every event
// the devnet emits is one the real chain emits with the same attribute keys in the same order.
func TestShapesPlainBankMatchRealMiniwasm(t *testing.T) {
	fx := testutil.Fixture(t, "miniwasm")
	const blocks = 40
	net := startNet(t, 8, blocks, devnet.ChainSpec{ChainID: "miniwasm-devnet-1", Kind: devnet.KindWasm})
	e := net.Endpoints()["miniwasm-devnet-1"]
	fetch := func(f string) [][]byte {
		var docs [][]byte
		for h := 1; h <= blocks+1; h++ {
			_, b := get(t, fmt.Sprintf(f, h))
			docs = append(docs, b)
		}
		return docs
	}
	results := fetch(e.RPC + "/block_results?height=%d")
	compareShapes(t, "comet block", shapeOf(t, jsonshape.ReadGlob(t, fx, "comet/block/*.json")), shapeOf(t, fetch(e.RPC+"/block?height=%d")))
	compareShapes(t, "comet block_results", shapeOf(t, jsonshape.ReadGlob(t, fx, "comet/block_results/*.json")), shapeOf(t, results))
	compareShapes(t, "rest txs by block", shapeOf(t, jsonshape.ReadGlob(t, fx, "rest/txs_block/*.json")), shapeOf(t, fetch(e.REST+"/cosmos/tx/v1beta1/txs/block/%d?pagination.limit=100")))
	real := jsonshape.BlockResultVariants(t, jsonshape.ReadGlob(t, fx, "comet/block_results/*.json"), jsonshape.EventOptions{FoldLog: true})
	mine := jsonshape.BlockResultVariants(t, results, jsonshape.EventOptions{FoldLog: true})
	if len(mine["transfer"]) == 0 || len(mine["message"]) == 0 {
		t.Fatalf("no bank traffic: %v", mine)
	}
	for typ, variants := range mine {
		for v := range variants {
			if !real[typ][v] {
				t.Errorf("devnet event %s [%s] is not one the real chain emits (%v)", typ, v, jsonshape.Sorted(real[typ]))
			}
		}
	}
}

// TestContractCallsMatchRealMinievm: name/symbol/decimals/totalSupply/balanceOf on the ERC-20s
// and ERC-721s, over REST /minievm/evm/v1/call and eth_call, shaped as the real node answers
// (including its reverts for ERC-721 decimals and totalSupply).
func TestContractCallsMatchRealMinievm(t *testing.T) {
	fx := testutil.Fixture(t, "minievm")
	net := startNet(t, 3, 40, devnet.ChainSpec{ChainID: "minievm-calls-1", Kind: devnet.KindEVM})
	ch, _ := net.Chain("minievm-calls-1")
	e := ch.Endpoints
	q, _ := ch.Engine().Query(0)
	var erc20s, erc721s []string
	q.Store("evm").Iterate("c/", func(k string, v []byte) bool {
		var c struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(v, &c)
		switch c.Kind {
		case "erc20":
			erc20s = append(erc20s, "0x"+k[2:])
		case "erc721":
			erc721s = append(erc721s, "0x"+k[2:])
		}
		return true
	})
	if len(erc20s) < 3 || len(erc721s) == 0 {
		t.Fatalf("contracts: %v %v", erc20s, erc721s)
	}
	holder := fmt.Sprintf("%064x", ch.Engine().Accounts()[1].Addr)
	inputs := map[string]string{"name": "0x06fdde03", "symbol": "0x95d89b41", "decimals": "0x313ce567", "totalSupply": "0x18160ddd", "balanceOf": "0x70a08231" + holder}
	var rest20, rest721, eth20, eth721 [][]byte
	for _, group := range []struct {
		addrs    []string
		rest, ev *[][]byte
	}{{erc20s, &rest20, &eth20}, {erc721s, &rest721, &eth721}} {
		for _, a := range group.addrs {
			for _, in := range inputs {
				_, rb := post(t, e.REST+"/minievm/evm/v1/call", map[string]string{"sender": "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d", "contract_addr": a, "input": in, "value": "0"})
				*group.rest = append(*group.rest, rb)
				_, eb := post(t, e.JSONRPC, rpcBody("eth_call", map[string]string{"to": a, "data": in}, "latest"))
				*group.ev = append(*group.ev, eb)
			}
		}
	}
	compareShapes(t, "rest erc20 calls", shapeOf(t, jsonshape.ReadGlob(t, fx, "rest/calls/[gtu]*.json")), shapeOf(t, rest20))
	compareShapes(t, "rest erc721 calls", shapeOf(t, jsonshape.ReadGlob(t, fx, "rest/calls/erc721_*.json")), shapeOf(t, rest721))
	compareShapes(t, "eth_call erc20", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/calls/[gtu]*.json")), shapeOf(t, eth20))
	compareShapes(t, "eth_call erc721", shapeOf(t, jsonshape.ReadGlob(t, fx, "evm/calls/erc721_*.json")), shapeOf(t, eth721))
	// the reverts are the real node's, byte for byte apart from used_gas
	_, got := post(t, e.JSONRPC, rpcBody("eth_call", map[string]string{"to": erc721s[0], "data": inputs["decimals"]}, "latest"))
	want, _ := os.ReadFile(filepath.Join(fx, "evm/calls/erc721_a_decimals_h68.json"))
	if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
		t.Fatalf("eth_call revert %s, real %s", got, want)
	}
}
