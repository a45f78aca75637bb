package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/client"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// lzWindow is the tracker's AbandonAfter in these tests: a packet not delivered within this
// much chain time is abandoned. The devnet delivers within a few blocks of a second each.
const lzWindow = 30 * time.Second

// lzNet is the devnet with its Ethereum chain and LayerZero, and a router over HTTP whose
// tracker is stepped after every block and which quotes LayerZero fees from the chains.
type lzNet struct {
	*trackNet
	eth  *devnet.Ethereum
	rpc  *evmrpc.Client
	usdt common.Address // the ERC-20 on Ethereum
	l1   string
	// l1USDT is the L1 denom of the OFT.
	l1USDT string
}

func startLZNet(t *testing.T) *lzNet {
	cfg := devnet.DefaultConfig()
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed, genesisTime, true
	cfg.BlockInterval = time.Second
	cfg.BridgeTraffic = 0
	cfg.Accounts, cfg.TxsPerBlock = 1, 1
	cfg.TestAccounts = 2
	cfg.LayerZero, cfg.LayerZeroDelay = true, 2*time.Second
	ln, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	tn := &testNet{ln: ln, dir: filepath.Join(t.TempDir(), "registry")}
	if err := tn.writeRegistry(tn.dir); err != nil {
		t.Fatal(err)
	}
	eth, ok := ln.Ethereum()
	if !ok {
		t.Fatal("the devnet runs no Ethereum chain")
	}
	listRollupUSDT(t, tn.dir)
	reg, err := registry.Load(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	live := registry.NewLive(reg)
	if err := live.Refresh(context.Background(), &registry.RESTSource{}); err != nil {
		t.Fatal(err)
	}
	st, err := track.OpenStore(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "track.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	// Blocks come faster than wall-clock time here: every round evaluates every transfer held
	// (Sweep), so a stall measured in chain time is seen at the block that passes the window.
	tr := track.New(st, live, track.Config{Probe: &track.RESTProber{Interval: time.Nanosecond}, AbandonAfter: lzWindow, Sweep: time.Nanosecond})
	// The route's estimate is the configured fee; /msgs quotes the real one from the chains.
	acfg := api.Config{Balances: &registry.RESTBalances{}, Tracker: tr, LZQuotes: &msgs.ChainLZQuoter{},
		Route: route.Config{LayerZeroFee: map[string]string{eth.ChainID(): "1", "initia-devnet-1": "1"}}}
	srv := httptest.NewServer(api.New(acfg, live, nil, prometheus.NewRegistry()))
	t.Cleanup(srv.Close)
	rpc, err := evmrpc.New(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	n := &lzNet{trackNet: &trackNet{wallet: newWallet(t, tn, srv.URL, live.Current()), tr: tr, st: st, reg: live.Current()},
		eth: eth, rpc: rpc, l1: "initia-devnet-1"}
	for _, a := range n.reg.Chain(eth.ChainID()).Assets {
		if a.LZ != nil && a.TokenContract != "" {
			n.usdt = common.HexToAddress(a.TokenContract)
			n.l1USDT = a.LZ.PeerDenom
		}
	}
	if n.l1USDT == "" {
		t.Fatal("the registry lists no LayerZero asset on the Ethereum chain")
	}
	return n
}

// The rollup the LayerZero-then-OPinit route ends on, and its bridge id.
const (
	lzRollup, lzRollupDir, lzRollupBridge = "minimove-devnet-1", "minimove", 2
)

// listRollupUSDT lists on the rollup the USDT an OPinit deposit of the L1's OFT coin mints
// there (l2/<hash of bridge id and L1 denom>), as an operator lists a new asset: the devnet's
// registry lists the L1's USDT but not its deposits, and the route engine only goes to listed
// assets. The chains are untouched: the rollup's bridge mints that denom for any L1 coin.
func listRollupUSDT(t *testing.T, dir string) {
	t.Helper()
	var l1 struct {
		Assets []map[string]any `json:"assets"`
	}
	testutil.ReadJSON(t, filepath.Join(dir, "initia", "assetlist.json"), &l1)
	l1Denom := ""
	for _, a := range l1.Assets {
		if _, ok := a["layerzero"]; ok {
			l1Denom, _ = a["base"].(string)
		}
	}
	if l1Denom == "" {
		t.Fatal("the L1 lists no LayerZero asset")
	}
	path := filepath.Join(dir, lzRollupDir, "assetlist.json")
	var doc map[string]any
	testutil.ReadJSON(t, path, &doc)
	l2 := registry.L2Denom(lzRollupBridge, l1Denom)
	for _, a := range doc["assets"].([]any) {
		if m, _ := a.(map[string]any); m["base"] == l2 {
			return // the devnet's registry lists it already
		}
	}
	doc["assets"] = append(doc["assets"].([]any), map[string]any{
		"base": l2, "display": "usdt", "name": "Tether USD", "symbol": "USDT", "description": "USDT deposited from the L1",
		"denom_units": []any{map[string]any{"denom": l2, "exponent": 0}, map[string]any{"denom": "usdt", "exponent": 6}},
		"traces": []any{map[string]any{"type": "op", "counterparty": map[string]any{"chain_name": "initia", "chain_id": "initia-devnet-1", "base_denom": l1Denom},
			"chain": map[string]any{"bridge_id": fmt.Sprint(lzRollupBridge)}}},
	})
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// step produces a block on every chain (the LayerZero bot acts on it) and lets the tracker
// scan it.
func (n *lzNet) stepAll() {
	n.t.Helper()
	if err := n.tn.step(n.ctx); err != nil {
		n.t.Fatal(err)
	}
	if err := n.tr.Step(n.ctx); err != nil {
		n.t.Fatal(err)
	}
}

func (n *lzNet) tokenBalance(holder common.Address) *big.Int {
	n.t.Helper()
	b, err := n.eth.TokenBalance(n.usdt, holder)
	if err != nil {
		n.t.Fatal(err)
	}
	return b
}

// routeAndMsgs asks /route then /msgs as a wallet does (every required chain's address from
// addrs), and returns both.
func (n *lzNet) routeAndMsgs(src, srcDenom, dst, dstDenom, amount string, multi bool, addrs map[string]string) (route.Route, msgs.Response) {
	n.t.Helper()
	req := map[string]any{"amount_in": amount, "source_asset_chain_id": src, "source_asset_denom": srcDenom,
		"dest_asset_chain_id": dst, "dest_asset_denom": dstDenom, "allow_multi_tx": multi}
	st, body := n.post("/v2/fungible/route", req)
	if st != http.StatusOK {
		n.t.Fatalf("route %s → %s: %d %s", src, dst, st, body)
	}
	checkSkipAnswer(n.t, "/v2/fungible/route", body)
	var rt route.Route
	if err := json.Unmarshal(body, &rt); err != nil {
		n.t.Fatal(err)
	}
	return rt, n.msgsOf(rt, src, srcDenom, dst, dstDenom, addrs)
}

// msgsOf asks /msgs for the route's operations as a wallet does.
func (n *lzNet) msgsOf(rt route.Route, src, srcDenom, dst, dstDenom string, addrs map[string]string) msgs.Response {
	n.t.Helper()
	var list []string
	for _, c := range rt.RequiredChainAddresses {
		a, ok := addrs[c]
		if !ok {
			n.t.Fatalf("no address for %s (route needs %v)", c, rt.RequiredChainAddresses)
		}
		list = append(list, a)
	}
	ops, _ := json.Marshal(rt.Operations)
	st, body := n.post("/v2/fungible/msgs", map[string]any{"source_asset_chain_id": src, "source_asset_denom": srcDenom,
		"dest_asset_chain_id": dst, "dest_asset_denom": dstDenom, "amount_in": rt.AmountIn, "amount_out": rt.AmountOut,
		"address_list": list, "operations": json.RawMessage(ops), "slippage_tolerance_percent": "1"})
	if st != http.StatusOK {
		n.t.Fatalf("msgs %s → %s: %d %s", src, dst, st, body)
	}
	checkSkipAnswer(n.t, "/v2/fungible/msgs", body)
	var mr msgs.Response
	if err := json.Unmarshal(body, &mr); err != nil {
		n.t.Fatal(err)
	}
	return mr
}

// sendEVM signs the evm_tx as a browser wallet does with an Anvil key (its approvals first),
// producing blocks while it waits, and registers it with /v2/tx/track; it returns the hash.
func (n *lzNet) sendEVM(key string, tx msgs.EVMTx) string {
	n.t.Helper()
	k, err := crypto.HexToECDSA(strings.TrimPrefix(key, "0x"))
	if err != nil {
		n.t.Fatal(err)
	}
	w := &client.EVMWallet{RPC: n.rpc, Key: k, Poll: 20 * time.Millisecond}
	type res struct {
		hash string
		err  error
	}
	done := make(chan res, 1)
	ctx, cancel := context.WithTimeout(n.ctx, time.Minute)
	defer cancel()
	go func() {
		h, err := w.Send(ctx, tx)
		done <- res{h, err}
	}()
	for i := 0; ; i++ {
		select {
		case r := <-done:
			if r.err != nil {
				n.t.Fatalf("evm tx on %s: %v", tx.ChainID, r.err)
			}
			st, body := n.post("/v2/tx/track", map[string]any{"chain_id": tx.ChainID, "tx_hash": r.hash})
			if st != http.StatusOK {
				n.t.Fatalf("track %s: %d %s", r.hash, st, body)
			}
			return r.hash
		case <-time.After(100 * time.Millisecond):
			if i > 100 {
				n.t.Fatal("the evm tx was not mined within 100 blocks")
			}
			n.stepAll()
		}
	}
}

// submitCosmos signs the cosmos_tx as account id (SIGN_MODE_DIRECT) and submits it through
// /v2/tx/submit; it returns the hash.
func (n *lzNet) submitCosmos(id int, tx *msgs.CosmosTx) string {
	n.t.Helper()
	raw := n.sign(tx.ChainID, id, n.decode(tx.Msgs), signingv1beta1.SignMode_SIGN_MODE_DIRECT, 2_000_000)
	st, body := n.post("/v2/tx/submit", map[string]any{"chain_id": tx.ChainID, "tx": base64.StdEncoding.EncodeToString(raw)})
	var res track.TrackResponse
	if err := json.Unmarshal(body, &res); err != nil || st != http.StatusOK || res.TxHash != track.TxHash(raw) {
		n.t.Fatalf("submit on %s: %d %s", tx.ChainID, st, body)
	}
	return res.TxHash
}

// waitState steps blocks until the tracked tx's status is terminal and returns it; every
// answer is validated against Skip's OpenAPI document (trackNet.status).
func (n *lzNet) waitState(chainID, hash string, maxBlocks int) track.StatusResponse {
	n.t.Helper()
	var s track.StatusResponse
	var body []byte
	for i := 0; i < maxBlocks; i++ {
		n.stepAll()
		s, body = n.status(chainID, hash)
		if track.Terminal(s.State) {
			n.t.Logf("%s on %s: %s after %d blocks", hash, chainID, s.State, i+1)
			return s
		}
	}
	n.t.Fatalf("%s on %s not terminal within %d blocks: %s", hash, chainID, maxBlocks, body)
	return s
}

// lzHop is the first LayerZero hop of a status.
func lzHop(t *testing.T, s track.StatusResponse) *track.LayerZeroTransferInfo {
	t.Helper()
	for _, h := range s.TransferSequence {
		if h.LayerZeroTransfer != nil {
			return h.LayerZeroTransfer
		}
	}
	t.Fatalf("no layer_zero_transfer in %+v", s)
	return nil
}

// TestLayerZeroEndToEnd moves USDT over LayerZero on the devnet through the router over HTTP,
// signed as wallets sign: Ethereum → L1 (an evm_tx with an Anvil key: approve, then the OFT
// adapter's send paying the quoted fee), L1 → Ethereum (the Move OFT's send_withdraw signed
// with the printed test mnemonic's account), Ethereum → minimove in one tx without
// allow_multi_tx (the OFT send pays the L1's OPinit composer, whose lz_compose makes the
// deposit: tracked through the LayerZero hop and its compose_tx to the deposit hop), the same
// with the deposit sent by the user as a second tx, each tracked from its PacketSent's GUID to
// STATE_COMPLETED_SUCCESS with the amount arriving (read from the chains); and a packet the DVN
// never verifies ends STATE_ABANDONED once the window has passed in chain time. Every route,
// msgs and status answer is validated against Skip's OpenAPI document.
func TestLayerZeroEndToEnd(t *testing.T) {
	n := startLZNet(t)
	anvil, err := devnet.AnvilAccounts()
	if err != nil || len(anvil) < 2 {
		t.Fatalf("anvil accounts: %v", err)
	}
	ethID := n.eth.ChainID()
	usdt := n.usdt.Hex()
	userL1 := n.tn.addr(t, n.l1, sdkUser) // the mnemonic's account 0 (= Anvil account 0's key)
	const amount = 1_000_000

	t.Run("ethereum_to_l1", func(t *testing.T) {
		n.t = t
		from := anvil[0]
		_, mr := n.routeAndMsgs(ethID, usdt, n.l1, n.l1USDT, fmt.Sprint(amount), false,
			map[string]string{ethID: from.Address.Hex(), n.l1: userL1})
		if len(mr.Txs) != 1 || mr.Txs[0].EVMTx == nil {
			t.Fatalf("txs %+v", mr.Txs)
		}
		tx := *mr.Txs[0].EVMTx
		if tx.Value != "100000000000000" || len(tx.RequiredERC20Approvals) != 1 {
			t.Fatalf("evm_tx value %s (the endpoint quotes 1e14 wei), approvals %v", tx.Value, tx.RequiredERC20Approvals)
		}
		ethBefore, l1Before := n.tokenBalance(from.Address), n.balance(n.l1, userL1, n.l1USDT)
		hash := n.sendEVM(from.PrivateKey, tx)
		s := n.waitState(ethID, hash, 20)
		hop := lzHop(t, s)
		if s.State != track.StateCompletedSuccess || hop.State != track.LZReceived || hop.Txs.SendTx == nil || hop.Txs.ReceiveTx == nil ||
			hop.Txs.SendTx.TxHash != strings.ToLower(hash) || hop.ToChainID != n.l1 || len(hop.GUID) != 66 {
			t.Fatalf("status %+v hop %+v", s, hop)
		}
		if got := new(big.Int).Sub(n.balance(n.l1, userL1, n.l1USDT), l1Before); got.Int64() != amount {
			t.Fatalf("L1 received %s, want %d", got, amount)
		}
		if got := new(big.Int).Sub(ethBefore, n.tokenBalance(from.Address)); got.Int64() != amount {
			t.Fatalf("Ethereum sent %s, want %d", got, amount)
		}
		if r := s.TransferAssetRelease; r == nil || !r.Released || r.ChainID != n.l1 || r.Denom != n.l1USDT || *r.Amount != fmt.Sprint(amount) {
			t.Fatalf("release %+v", r)
		}
	})

	t.Run("l1_to_ethereum", func(t *testing.T) {
		n.t = t
		to := anvil[1].Address
		_, mr := n.routeAndMsgs(n.l1, n.l1USDT, ethID, usdt, fmt.Sprint(amount), false,
			map[string]string{n.l1: userL1, ethID: to.Hex()})
		if len(mr.Txs) != 1 || mr.Txs[0].CosmosTx == nil || mr.Txs[0].CosmosTx.Msgs[0].MsgTypeURL != msgs.TypeMsgExecute {
			t.Fatalf("txs %+v", mr.Txs)
		}
		if !strings.Contains(mr.Txs[0].CosmosTx.Msgs[0].Msg, `"function_name":"send_withdraw"`) {
			t.Fatalf("msg %s", mr.Txs[0].CosmosTx.Msgs[0].Msg)
		}
		ethBefore, l1Before := n.tokenBalance(to), n.balance(n.l1, userL1, n.l1USDT)
		hash := n.submitCosmos(sdkUser, mr.Txs[0].CosmosTx)
		s := n.waitState(n.l1, hash, 20)
		hop := lzHop(t, s)
		if s.State != track.StateCompletedSuccess || hop.State != track.LZReceived || hop.FromChainID != n.l1 || hop.ToChainID != ethID ||
			hop.Txs.ReceiveTx == nil || !strings.HasPrefix(hop.Txs.ReceiveTx.TxHash, "0x") {
			t.Fatalf("status %+v hop %+v", s, hop)
		}
		if got := new(big.Int).Sub(n.tokenBalance(to), ethBefore); got.Int64() != amount {
			t.Fatalf("Ethereum received %s, want %d", got, amount)
		}
		if got := new(big.Int).Sub(l1Before, n.balance(n.l1, userL1, n.l1USDT)); got.Int64() != amount {
			t.Fatalf("L1 sent %s, want %d", got, amount)
		}
	})

	const mmov = lzRollup
	var l2USDT string
	for _, a := range n.reg.Chain(mmov).Assets {
		if a.OP != nil && a.OP.L1Denom == n.l1USDT {
			l2USDT = a.Denom
		}
	}
	if l2USDT == "" {
		t.Fatalf("no OPinit USDT listed on %s", mmov)
	}
	userL2 := n.tn.addr(t, mmov, sdkUser)

	t.Run("ethereum_to_minimove_one_tx", func(t *testing.T) {
		n.t = t
		from := anvil[0]
		addrs := map[string]string{ethID: from.Address.Hex(), n.l1: userL1, mmov: userL2}
		rt, mr := n.routeAndMsgs(ethID, usdt, mmov, l2USDT, fmt.Sprint(amount), false, addrs)
		if rt.TxsRequired != 1 || len(rt.Operations) != 2 || rt.Operations[1].TxIndex != 0 || len(mr.Txs) != 1 || mr.Txs[0].EVMTx == nil ||
			!slices.Equal(mr.Txs[0].OperationsIndices, []int{0, 1}) {
			t.Fatalf("route txs %d ops %+v, msgs %+v", rt.TxsRequired, rt.Operations, mr.Txs)
		}
		tx := *mr.Txs[0].EVMTx
		// The send pays the L1's composer, with an lzCompose option and the compose message.
		if !strings.Contains(tx.Data, strings.TrimPrefix(devnet.LayerZeroL1Composer, "0x")) || tx.Value != "100000000000000" {
			t.Fatalf("evm_tx to %s value %s data %s: not a send to the composer %s", tx.To, tx.Value, tx.Data, devnet.LayerZeroL1Composer)
		}
		l1Before, l2Before := n.balance(n.l1, userL1, n.l1USDT), n.balance(mmov, userL2, l2USDT)
		composed := n.tn.ln.LayerZero().Stats().Composed
		hash := n.sendEVM(from.PrivateKey, tx)
		s := n.waitState(ethID, hash, 30)
		if s.State != track.StateCompletedSuccess || len(s.TransferSequence) != 2 {
			t.Fatalf("status %+v", s)
		}
		hop, dep := s.TransferSequence[0].LayerZeroTransfer, s.TransferSequence[1].OPInitTransfer
		if hop == nil || hop.State != track.LZReceived || hop.Txs.ReceiveTx == nil || hop.Txs.ComposeTx == nil || hop.ToChainID != n.l1 ||
			hop.Txs.SendTx.TxHash != strings.ToLower(hash) {
			t.Fatalf("LayerZero hop %+v", hop)
		}
		if dep == nil || dep.FromChainID != n.l1 || dep.ToChainID != mmov || dep.State != track.OPInitReceived ||
			dep.Txs.SendTx == nil || dep.Txs.SendTx.TxHash != hop.Txs.ComposeTx.TxHash || dep.Txs.ReceiveTx == nil {
			t.Fatalf("deposit hop %+v (compose tx %+v)", dep, hop.Txs.ComposeTx)
		}
		if r := s.TransferAssetRelease; r == nil || !r.Released || r.ChainID != mmov || r.Denom != l2USDT || *r.Amount != fmt.Sprint(amount) {
			t.Fatalf("release %+v", r)
		}
		// Ground truth: the rollup account received the amount; nothing stayed on the L1.
		if got := new(big.Int).Sub(n.balance(mmov, userL2, l2USDT), l2Before); got.Int64() != amount {
			t.Fatalf("%s received %s, want %d", mmov, got, amount)
		}
		if got := n.balance(n.l1, userL1, n.l1USDT); got.Cmp(l1Before) != 0 {
			t.Fatalf("the L1 account's USDT moved: %s → %s", l1Before, got)
		}
		if st := n.tn.ln.LayerZero().Stats(); st.Composed != composed+1 {
			t.Fatalf("LayerZero stats %+v: want one more compose", st)
		}
	})

	t.Run("ethereum_to_minimove_two_txs", func(t *testing.T) {
		n.t = t
		from := anvil[0]
		addrs := map[string]string{ethID: from.Address.Hex(), n.l1: userL1, mmov: userL2}
		rt, _ := n.routeAndMsgs(ethID, usdt, mmov, l2USDT, fmt.Sprint(amount), true, addrs)
		// A wallet may send the deposit itself, after the LayerZero hop (the operations with
		// the deposit in a tx of its own are as valid for /msgs).
		rt.Operations[1].TxIndex = 1
		mr := n.msgsOf(rt, ethID, usdt, mmov, l2USDT, addrs)
		if len(mr.Txs) != 2 || mr.Txs[0].EVMTx == nil || mr.Txs[1].CosmosTx == nil {
			t.Fatalf("msgs %+v", mr.Txs)
		}
		l2Before := n.balance(mmov, userL2, l2USDT)
		hash := n.sendEVM(from.PrivateKey, *mr.Txs[0].EVMTx)
		if s := n.waitState(ethID, hash, 20); s.State != track.StateCompletedSuccess {
			t.Fatalf("LayerZero leg: %+v", s)
		}
		// The second tx spends what arrived on the L1: the OPinit deposit.
		hash = n.submitCosmos(sdkUser, mr.Txs[1].CosmosTx)
		s := n.waitState(n.l1, hash, 20)
		if s.State != track.StateCompletedSuccess || len(s.TransferSequence) != 1 || s.TransferSequence[0].OPInitTransfer == nil {
			t.Fatalf("deposit leg: %+v", s)
		}
		if got := new(big.Int).Sub(n.balance(mmov, userL2, l2USDT), l2Before); got.Int64() != amount {
			t.Fatalf("%s received %s, want %d", mmov, got, amount)
		}
	})

	t.Run("never_delivered_abandoned", func(t *testing.T) {
		n.t = t
		before := n.tn.ln.LayerZero().Stats()
		n.tn.ln.LayerZero().SetDeliver(false)
		defer n.tn.ln.LayerZero().SetDeliver(true)
		from := anvil[0]
		_, mr := n.routeAndMsgs(ethID, usdt, n.l1, n.l1USDT, "1000", false, map[string]string{ethID: from.Address.Hex(), n.l1: userL1})
		hash := n.sendEVM(from.PrivateKey, *mr.Txs[0].EVMTx)
		// Pending while the window lasts ...
		for i := 0; i < 5; i++ {
			n.stepAll()
		}
		if s, body := n.status(ethID, hash); s.State != track.StatePending || lzHop(t, s).State != track.LZSent {
			t.Fatalf("undelivered packet: %s", body)
		}
		// ... then abandoned, the hop still SENT.
		s := n.waitState(ethID, hash, int(lzWindow/time.Second)+20)
		if s.State != track.StateAbandoned || s.Status != track.StatusCompleted || lzHop(t, s).State != track.LZSent || s.Error == nil {
			t.Fatalf("status %+v", s)
		}
		if st := n.tn.ln.LayerZero().Stats(); st.Delivered != before.Delivered || st.Sent != before.Sent+1 {
			t.Errorf("LayerZero stats %+v, before %+v: want one more sent, none more delivered", st, before)
		}
	})
}
