package devnet_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

func opts() []httpx.Option {
	return []httpx.Option{httpx.WithMaxAttempts(1), httpx.WithTimeout(5 * time.Second)}
}

// TestCometAndRESTWithProjectClients drives every CometBFT and Cosmos REST endpoint of each
// chain kind with the project's own clients.
func TestCometAndRESTWithProjectClients(t *testing.T) {
	net := startNet(t, 5, 20)
	ctx := context.Background()
	for _, ch := range net.Chains() {
		t.Run(ch.Spec.ChainID, func(t *testing.T) {
			cc, err := comet.New(ch.Endpoints.RPC, opts()...)
			if err != nil {
				t.Fatal(err)
			}
			st, err := cc.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.SyncInfo.LatestBlockHeight != ch.Engine().Height() || st.NodeInfo.Network != ch.Spec.ChainID {
				t.Fatalf("status %+v", st.SyncInfo)
			}
			var txHash []byte
			var txHeight int64
			for h := int64(1); h <= ch.Engine().Height(); h++ {
				b, err := cc.Block(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				br, err := cc.BlockResults(ctx, h)
				if err != nil {
					t.Fatal(err)
				}
				if b.Block.Header.Height != h || br.Height != h || len(b.Block.Data.Txs) != len(br.TxsResults) {
					t.Fatalf("height %d: block %d results %d, %d txs vs %d results", h, b.Block.Header.Height, br.Height, len(b.Block.Data.Txs), len(br.TxsResults))
				}
				if h > 1 {
					prev, _ := ch.Engine().Block(h - 1)
					if !strings.EqualFold(hex.EncodeToString(b.Block.Header.LastBlockID.Hash), hex.EncodeToString(prev.ID.Hash)) {
						t.Fatalf("height %d: last_block_id does not chain", h)
					}
				}
				if txHash == nil && len(b.Block.Data.Txs) > 0 {
					cb, _ := ch.Engine().Block(h)
					txHash, txHeight = cb.TxHashes[0][:], h
				}
			}
			if txHash == nil {
				t.Fatal("no traffic in 20 blocks")
			}
			if _, err := cc.Block(ctx, 10_000); err == nil {
				t.Fatal("future block answered")
			} else if cur, ok := comet.IsFutureHeight(err); !ok || cur != ch.Engine().Height() {
				t.Fatalf("future height error %v (current %d, ok %v)", err, cur, ok)
			}
			tx, err := cc.Tx(ctx, fmt.Sprintf("%X", txHash), false)
			if err != nil || tx.Height != txHeight {
				t.Fatalf("tx: %v %+v", err, tx)
			}
			if _, err := cc.Tx(ctx, strings.Repeat("AB", 32), false); !comet.IsNotFound(err) {
				t.Fatalf("unknown tx: %v", err)
			}
			res, err := cc.TxSearch(ctx, fmt.Sprintf("tx.height=%d", txHeight), 1, 100, "asc")
			if err != nil || res.TotalCount == 0 {
				t.Fatalf("tx_search: %v %+v", err, res)
			}
			// Search by the action of the tx found above (each VM's traffic has its own mix).
			action := ""
			for _, ev := range tx.TxResult.Events {
				for _, a := range ev.Attributes {
					if ev.Type == "message" && a.Key == "action" && action == "" {
						action = a.Value
					}
				}
			}
			res, err = cc.TxSearch(ctx, fmt.Sprintf("message.action='%s'", action), 1, 30, "desc")
			if err != nil || action == "" || res.TotalCount == 0 || len(res.Txs) == 0 {
				t.Fatalf("tx_search by event message.action=%q: %v %+v", action, err, res)
			}
			bc, err := cc.Blockchain(ctx, 1, 5)
			if err != nil || len(bc.BlockMetas) != 5 || bc.LastHeight != ch.Engine().Height() {
				t.Fatalf("blockchain: %v %+v", err, bc)
			}
			acc := ch.Engine().Accounts()[0]
			q, err := cc.ABCIQuery(ctx, "/cosmos.bank.v1beta1.Query/Balance",
				append(append([]byte{0x0a, byte(len(acc.Bech32))}, acc.Bech32...), append([]byte{0x12, byte(len(ch.Engine().Config().FeeDenom))}, ch.Engine().Config().FeeDenom...)...), 0, false)
			if err != nil || q.Response.Code != 0 || len(q.Response.Value) == 0 {
				t.Fatalf("abci_query: %v %+v", err, q)
			}

			rc, err := cosmosrest.New(ch.Endpoints.REST, opts()...)
			if err != nil {
				t.Fatal(err)
			}
			bt, err := rc.TxsByBlock(ctx, txHeight)
			if err != nil || len(bt.Txs) == 0 {
				t.Fatalf("txs by block: %v", err)
			}
			tr, err := rc.TxByHash(ctx, fmt.Sprintf("%X", txHash))
			if err != nil || tr.TxResponse == nil {
				t.Fatalf("tx by hash: %v", err)
			}
			if _, err := rc.TxByHash(ctx, strings.Repeat("AB", 32)); !cosmosrest.IsNotFound(err) {
				t.Fatalf("unknown tx over REST: %v", err)
			}
			if _, err := rc.TxsByBlock(ctx, 10_000); err == nil {
				t.Fatal("future txs answered")
			} else if _, ok := cosmosrest.IsFutureHeight(err); !ok {
				t.Fatalf("future REST height not recognised: %v", err)
			}
			lb, err := rc.LatestBlock(ctx)
			if err != nil || lb.Height != ch.Engine().Height() || lb.ChainID != ch.Spec.ChainID {
				t.Fatalf("latest block: %v %+v", err, lb)
			}
			ni, err := rc.NodeInfo(ctx)
			if err != nil || ni.ApplicationVersion.Version == "" {
				t.Fatalf("node info: %v", err)
			}
			bals, err := rc.Balances(ctx, acc.Bech32, 2)
			if err != nil || len(bals) == 0 {
				t.Fatalf("balances at height 2: %v %v", err, bals)
			}
			page, err := rc.Accounts(ctx, cosmosrest.PageRequest{Limit: 100}, 0)
			if err != nil || len(page.Accounts) < len(ch.Engine().Accounts()) {
				t.Fatalf("accounts: %v", err)
			}
			if _, err := rc.Account(ctx, acc.Bech32); err != nil {
				t.Fatalf("account: %v", err)
			}
			var byEvents struct {
				TxResponses []json.RawMessage `json:"tx_responses"`
				Total       string            `json:"total"`
			}
			if err := rc.Get(ctx, "/cosmos/tx/v1beta1/txs", url.Values{"query": {fmt.Sprintf("tx.height=%d", txHeight)}}, 0, &byEvents); err != nil ||
				len(byEvents.TxResponses) == 0 || byEvents.Total != fmt.Sprint(len(byEvents.TxResponses)) {
				t.Fatalf("txs by events: %v %+v", err, byEvents)
			}
			if g, err := cc.Genesis(ctx); err != nil || g == nil {
				t.Fatalf("genesis: %v", err)
			}
			if _, err := cc.Validators(ctx, 1); err != nil {
				t.Fatalf("validators: %v", err)
			}
			if _, err := rc.ModuleAccounts(ctx); err != nil {
				t.Fatalf("module accounts: %v", err)
			}
		})
	}
}

// TestHistoricalQueries: REST reads honour x-cosmos-block-height.
func TestHistoricalQueries(t *testing.T) {
	net := startNet(t, 9, 0, devnet.ChainSpec{ChainID: "l1-hist-1", Kind: devnet.KindL1})
	ch, _ := net.Chain("l1-hist-1")
	k := ch.Engine().Key(0)
	to := ch.Engine().Accounts()[1]
	num, seq, _ := ch.Engine().AccountState(k.Address())
	raw := signSend(t, ch.Engine(), k, num, seq, to.Bech32, "uinit", 12345)
	if r := ch.Engine().BroadcastTxSync(raw); r.Code != 0 {
		t.Fatalf("broadcast: %+v", r)
	}
	before := ch.Engine().Height()
	if err := net.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	rc, _ := cosmosrest.New(ch.Endpoints.REST, opts()...)
	amount := func(h int64) *big.Int {
		coins, err := rc.Balances(context.Background(), to.Bech32, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range coins {
			if c.Denom == "uinit" {
				v, _ := new(big.Int).SetString(c.Amount, 10)
				return v
			}
		}
		return new(big.Int)
	}
	diff := new(big.Int).Sub(amount(before+1), amount(before))
	if diff.Int64() != 12345 {
		t.Fatalf("balance at %d vs %d differs by %s", before+1, before, diff)
	}
}

func signSend(t *testing.T, c *engine.Chain, k *engine.Key, num, seq uint64, to, denom string, amt int64) []byte {
	t.Helper()
	msg := &bankv1beta1.MsgSend{FromAddress: engine.Bech32("init", k.Address()), ToAddress: to,
		Amount: []*basev1beta1.Coin{{Denom: denom, Amount: fmt.Sprint(amt)}}}
	raw, err := engine.SignDirect(c.ChainID(), k, num, seq, []proto.Message{msg}, "", engine.Fee{GasLimit: 200000})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestBroadcastChecks: CheckTx rejects bad signatures and wrong sequences with the SDK's codes,
// accepts a good tx, and the next block executes it.
func TestBroadcastChecks(t *testing.T) {
	net := startNet(t, 11, 0, devnet.ChainSpec{ChainID: "l1-check-1", Kind: devnet.KindL1})
	ch, _ := net.Chain("l1-check-1")
	cc, _ := comet.New(ch.Endpoints.RPC, opts()...)
	ctx := context.Background()
	k := ch.Engine().Key(2)
	num, seq, _ := ch.Engine().AccountState(k.Address())
	to := ch.Engine().Accounts()[3].Bech32

	good := signSend(t, ch.Engine(), k, num, seq, to, "uinit", 5)
	badSig := append([]byte(nil), good...)
	badSig[len(badSig)-5] ^= 0xff
	cases := []struct {
		name      string
		tx        []byte
		code      uint32
		codespace string
	}{
		{"bad signature", badSig, 4, "sdk"},
		{"sequence too high", signSend(t, ch.Engine(), k, num, seq+1, to, "uinit", 5), 32, "sdk"},
		{"wrong account number", signSend(t, ch.Engine(), k, num+7, seq, to, "uinit", 5), 4, "sdk"},
		{"garbage", []byte{0xff, 0x01}, 2, "sdk"},
		{"good", good, 0, ""},
		{"replayed sequence", signSend(t, ch.Engine(), k, num, seq, to, "uinit", 6), 32, "sdk"},
	}
	for _, c := range cases {
		res, err := cc.BroadcastTxSync(ctx, c.tx)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Code != c.code || res.Codespace != c.codespace {
			t.Errorf("%s: code %d %q (%s), want %d %q", c.name, res.Code, res.Codespace, res.Log, c.code, c.codespace)
		}
	}
	if err := net.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, seq2, _ := ch.Engine().AccountState(k.Address())
	if seq2 != seq+1 {
		t.Fatalf("sequence %d after the block, want %d", seq2, seq+1)
	}
	b, _ := ch.Engine().Block(0)
	found := false
	for i, h := range b.TxHashes {
		if string(h[:]) == string(sha(good)) {
			found = b.Results[i].Code == 0
		}
	}
	if !found {
		t.Fatal("the accepted tx was not executed in the next block")
	}
}

// TestEVMWithProjectClientAndEthclient drives the EVM rollup's JSON-RPC with evmrpc and
// go-ethereum's ethclient, including a tx sent through eth_sendRawTransaction.
func TestEVMWithProjectClientAndEthclient(t *testing.T) {
	net := startNet(t, 13, 25, devnet.ChainSpec{ChainID: "minievm-clients-1", Kind: devnet.KindEVM})
	ch, _ := net.Chain("minievm-clients-1")
	ctx := context.Background()
	ec, err := evmrpc.New(ch.Endpoints.JSONRPC, opts()...)
	if err != nil {
		t.Fatal(err)
	}
	n, err := ec.BlockNumber(ctx)
	if err != nil || int64(n) != ch.Engine().Height() {
		t.Fatalf("block number %d %v", n, err)
	}
	var someTx string
	for h := int64(1); h <= int64(n); h++ {
		b, err := ec.BlockByNumber(ctx, h, true)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ec.BlockReceipts(ctx, h)
		if err != nil || len(rs) != len(b.Transactions) {
			t.Fatalf("receipts at %d: %v (%d vs %d)", h, err, len(rs), len(b.Transactions))
		}
		if _, err := ec.TraceBlockByNumber(ctx, h, "callTracer"); err != nil {
			t.Fatal(err)
		}
		if someTx == "" && len(rs) > 0 {
			someTx = rs[0].TransactionHash
		}
	}
	if r, err := ec.TransactionReceipt(ctx, someTx); err != nil || r == nil {
		t.Fatalf("receipt: %v", err)
	}
	// a real minievm answers null for future blocks, which the client reports as an error
	if _, err := ec.BlockByNumber(ctx, 100_000, true); err == nil {
		t.Fatal("future block answered")
	}
	if _, err := ec.TraceBlockByNumber(ctx, 100_000, "callTracer"); err == nil || !evmrpc.IsFutureBlock(err) {
		t.Fatalf("future trace: %v", err)
	}

	// ethclient
	cl, err := ethclient.DialContext(ctx, ch.Endpoints.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cid, err := cl.ChainID(ctx)
	if err != nil || cid.Uint64() != ch.EVMModule().EVMChainID(ch.Spec.ChainID) {
		t.Fatalf("chain id %v %v", cid, err)
	}
	bn, err := cl.BlockNumber(ctx)
	if err != nil || bn != n {
		t.Fatalf("ethclient block number %d %v", bn, err)
	}
	for h := uint64(1); h <= bn; h++ {
		blk, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(h))
		if err != nil {
			t.Fatalf("ethclient block %d: %v", h, err)
		}
		// go-ethereum rehashes the header: it must be the hash the node reports
		lb, err := ec.BlockByNumber(ctx, int64(h), false)
		if err != nil || blk.Hash().Hex() != lb.Hash {
			t.Fatalf("block %d: header hash %s, reported %s (%v)", h, blk.Hash().Hex(), lb.Hash, err)
		}
		if byHash, err := cl.HeaderByHash(ctx, blk.Hash()); err != nil || byHash.Number.Uint64() != h {
			t.Fatalf("header by hash %d: %v", h, err)
		}
		for _, tx := range blk.Transactions() {
			if _, err := cl.TransactionReceipt(ctx, tx.Hash()); err != nil {
				t.Fatalf("ethclient receipt %s: %v", tx.Hash(), err)
			}
		}
	}
	// logs by filter agree with the receipts
	transfer := common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")
	logs, err := cl.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(1), ToBlock: new(big.Int).SetUint64(bn), Topics: [][]common.Hash{{transfer}}})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for h := int64(1); h <= int64(bn); h++ {
		rs, _ := ec.BlockReceipts(ctx, h)
		for _, r := range rs {
			for _, l := range r.Logs {
				if len(l.Topics) > 0 && l.Topics[0] == transfer.Hex() {
					want++
				}
			}
		}
	}
	if len(logs) != want || want == 0 {
		t.Fatalf("eth_getLogs found %d Transfer logs, receipts have %d", len(logs), want)
	}
	// the traffic's ERC-20 (first contract created through the factory)
	q, _ := ch.Engine().Query(0)
	var token common.Address
	for _, acc := range ch.Engine().Accounts() {
		for _, c := range engine.Balances(q, acc.Addr) {
			if strings.HasPrefix(c.Denom, "evm/") {
				token = common.HexToAddress(c.Denom[4:])
			}
		}
	}
	if token == (common.Address{}) {
		t.Fatal("no factory ERC-20 holder after 25 blocks")
	}
	holder := common.Address{}
	for _, acc := range ch.Engine().Accounts() {
		if q.Balance(acc.Addr, "evm/"+token.Hex()[2:]).Sign() > 0 {
			holder = common.BytesToAddress(acc.Addr)
		}
	}
	data, _ := evm.Pack("balanceOf", holder)
	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil || new(big.Int).SetBytes(out).Cmp(q.Balance(holder.Bytes(), "evm/"+token.Hex()[2:])) != 0 {
		t.Fatalf("balanceOf via ethclient: %x %v", out, err)
	}
	for _, fn := range []string{"name", "symbol", "decimals", "totalSupply"} {
		data, _ := evm.Pack(fn)
		if out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, nil); err != nil || len(out) == 0 {
			t.Fatalf("%s: %x %v", fn, out, err)
		}
	}
	// batch, the way the rich-list code asks
	rc, _ := rpc.DialContext(ctx, ch.Endpoints.JSONRPC)
	defer rc.Close()
	var head string
	var bals [3]string
	batch := []rpc.BatchElem{{Method: "eth_blockNumber", Result: &head}}
	for i, acc := range ch.Engine().Accounts()[:3] {
		d, _ := evm.Pack("balanceOf", common.BytesToAddress(acc.Addr))
		batch = append(batch, rpc.BatchElem{Method: "eth_call", Args: []any{map[string]string{"to": token.Hex(), "data": "0x" + hex.EncodeToString(d)}, "latest"}, Result: &bals[i]})
	}
	if err := rc.BatchCallContext(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, el := range batch {
		if el.Error != nil {
			t.Fatalf("batch element %s: %v", el.Method, el.Error)
		}
	}
	// project client batch too
	var h2 json.RawMessage
	if err := ec.Batch(ctx, []evmrpc.Request{{Method: "eth_blockNumber", Result: &h2}}); err != nil {
		t.Fatal(err)
	}

	// a wallet tx over eth_sendRawTransaction: native value transfer from genesis key 0
	k := ch.Engine().Key(0)
	from := common.BytesToAddress(k.Address())
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	to := common.BytesToAddress(ch.Engine().Accounts()[5].Addr)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: nonce, GasTipCap: new(big.Int), GasFeeCap: new(big.Int), Gas: 300000, To: &to, Value: big.NewInt(777)})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(cid), k.ECDSA())
	if err != nil {
		t.Fatal(err)
	}
	before, _ := cl.BalanceAt(ctx, to, nil)
	if err := cl.SendTransaction(ctx, signed); err != nil {
		t.Fatalf("send: %v", err)
	}
	if err := net.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	rcpt, err := cl.TransactionReceipt(ctx, signed.Hash())
	if err != nil || rcpt.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("receipt of the sent tx: %v %+v", err, rcpt)
	}
	after, _ := cl.BalanceAt(ctx, to, nil)
	if new(big.Int).Sub(after, before).Int64() != 777 {
		t.Fatalf("value not received: %s -> %s", before, after)
	}
	// and the REST call endpoint, at a height
	rest, _ := cosmosrest.New(ch.Endpoints.REST, opts()...)
	d, _ := evm.Pack("symbol")
	cr, err := rest.Call(ctx, "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d", token.Hex(), "0x"+hex.EncodeToString(d), "0", ch.Engine().Height())
	if err != nil || cr.Error != "" || len(cr.Response) < 10 {
		t.Fatalf("REST call: %v %+v", err, cr)
	}
	if a, err := rest.ContractByDenom(ctx, "GAS"); err != nil || !common.IsHexAddress(a) {
		t.Fatalf("by_denom: %q %v", a, err)
	}
}
