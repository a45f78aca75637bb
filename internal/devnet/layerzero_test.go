package devnet_test

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/denom"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// lzNet is a manual-block network of the L1 alone with LayerZero on: the L1, the Ethereum
// chain and the DVN/executor.
func lzNet(t *testing.T, mod func(*devnet.Config)) *devnet.Network {
	t.Helper()
	cfg := standalone()
	cfg.Chains = cfg.Chains[:1]
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks, cfg.LayerZero = 7, genesis, true, true
	cfg.LayerZeroDelay = 2 * time.Second // four blocks of 500ms
	if mod != nil {
		mod(&cfg)
	}
	n, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if err := n.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	return n
}

func anvilKey(t *testing.T, i int) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	accs, err := devnet.AnvilAccounts()
	if err != nil {
		t.Fatal(err)
	}
	k, err := crypto.HexToECDSA(strings.TrimPrefix(accs[i].PrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return k, accs[i].Address
}

// ethSend signs and sends a tx as a wallet does (nonce, fees and gas asked from the chain).
func ethSend(t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte, legacy bool) common.Hash {
	t.Helper()
	return ethSendGas(t, ec, key, to, value, data, legacy, 0)
}

// ethSendGas is ethSend with a fixed gas limit (0: estimated), for a tx estimation refuses.
func ethSendGas(t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte, legacy bool, gas uint64) common.Hash {
	t.Helper()
	ctx := t.Context()
	from := crypto.PubkeyToAddress(key.PublicKey)
	cid, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	if gas == 0 {
		if gas, err = ec.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data}); err != nil {
			t.Fatalf("estimate gas: %v", err)
		}
	}
	price, err := ec.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tx *types.Transaction
	if legacy {
		tx = types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: value, Data: data})
	} else {
		tip, err := ec.SuggestGasTipCap(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx = types.NewTx(&types.DynamicFeeTx{ChainID: cid, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Mul(price, big.NewInt(2)),
			Gas: gas, To: &to, Value: value, Data: data})
	}
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(cid), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := ec.SendTransaction(ctx, signed); err != nil {
		t.Fatalf("send: %v", err)
	}
	return signed.Hash()
}

func mined(t *testing.T, n *devnet.Network, ec *ethclient.Client, h common.Hash) *types.Receipt {
	t.Helper()
	if err := n.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	r, err := ec.TransactionReceipt(t.Context(), h)
	if err != nil {
		t.Fatalf("receipt %s: %v", h.Hex(), err)
	}
	return r
}

var erc20 = mustABI(`[{"type":"function","name":"balanceOf","inputs":[{"type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"approve","inputs":[{"type":"address"},{"type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"allowance","inputs":[{"type":"address"},{"type":"address"}],"outputs":[{"type":"uint256"}]}]`)

// oftABI is IOFT's send and quoteSend (LayerZero-v2 evm/oapp/contracts/oft/interfaces/IOFT.sol).
var oftABI = mustABI(`[{"type":"function","name":"quoteSend","stateMutability":"view","inputs":[{"name":"p","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]},{"name":"z","type":"bool"}],"outputs":[{"name":"fee","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]}]},
{"type":"function","name":"send","stateMutability":"payable","inputs":[{"name":"p","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]},{"name":"f","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]},{"name":"r","type":"address"}],"outputs":[]}]`)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic(err)
	}
	return a
}

type sendParam struct {
	DstEid       uint32
	To           [32]byte
	AmountLD     *big.Int
	MinAmountLD  *big.Int
	ExtraOptions []byte
	ComposeMsg   []byte
	OftCmd       []byte
}

type fee struct {
	NativeFee  *big.Int
	LzTokenFee *big.Int
}

func call(t *testing.T, ec *ethclient.Client, a abi.ABI, to common.Address, method string, args ...any) []any {
	t.Helper()
	in, err := a.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ec.CallContract(t.Context(), ethereum.CallMsg{To: &to, Data: in}, nil)
	if err != nil {
		t.Fatalf("eth_call %s: %v", method, err)
	}
	v, err := a.Unpack(method, out)
	if err != nil {
		t.Fatalf("unpack %s: %v", method, err)
	}
	return v
}

// TestEthereumJSONRPC: what a wallet asks of the chain answers through go-ethereum's own
// client, and a block read back hashes to the hash the chain gave it.
func TestEthereumJSONRPC(t *testing.T) {
	n := lzNet(t, nil)
	eth, ok := n.Ethereum()
	if !ok {
		t.Fatal("no Ethereum chain")
	}
	ec, err := ethclient.Dial(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	ctx := t.Context()
	if id, err := ec.ChainID(ctx); err != nil || id.Uint64() != 31337 {
		t.Fatalf("chain id %v %v", id, err)
	}
	key, from := anvilKey(t, 0)
	_, to := anvilKey(t, 1)
	bal, err := ec.BalanceAt(ctx, from, nil)
	if want, _ := new(big.Int).SetString("10000000000000000000000", 10); err != nil || bal.Cmp(want) != 0 {
		t.Fatalf("balance %v %v", bal, err)
	}
	if v := call(t, ec, erc20, devnet.LayerZeroUSDT, "balanceOf", from); v[0].(*big.Int).Cmp(big.NewInt(1e12)) != 0 {
		t.Fatalf("USDT balance %v", v[0])
	}
	// A legacy and an EIP-1559 value transfer, mined in one block.
	h1 := ethSend(t, ec, key, to, big.NewInt(1e18), nil, true)
	h2 := ethSend(t, ec, key, to, big.NewInt(2e18), nil, false)
	if tx, pending, err := ec.TransactionByHash(ctx, h2); err != nil || !pending || tx.Hash() != h2 {
		t.Fatalf("pending tx: %v %v", pending, err)
	}
	r1 := mined(t, n, ec, h1)
	r2, err := ec.TransactionReceipt(ctx, h2)
	if err != nil || r1.Status != 1 || r2.Status != 1 || r1.BlockHash != r2.BlockHash || r2.TransactionIndex != 1 {
		t.Fatalf("receipts %+v %+v %v", r1, r2, err)
	}
	b, err := ec.BlockByNumber(ctx, r1.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if b.Hash() != r1.BlockHash || len(b.Transactions()) != 2 {
		t.Fatalf("block %s hashes to %s (%d txs)", r1.BlockHash, b.Hash(), len(b.Transactions()))
	}
	if bh, err := ec.BlockByHash(ctx, r1.BlockHash); err != nil || bh.NumberU64() != b.NumberU64() {
		t.Fatalf("block by hash: %v", err)
	}
	got, _ := ec.BalanceAt(ctx, to, nil)
	if want, _ := new(big.Int).SetString("10003000000000000000000", 10); got.Cmp(want) != 0 {
		t.Fatalf("recipient holds %s", got)
	}
	if nonce, err := ec.NonceAt(ctx, from, nil); err != nil || nonce != 2 {
		t.Fatalf("nonce %d %v", nonce, err)
	}
	// A replayed tx and a bad nonce are refused as a node refuses them.
	key1, _ := anvilKey(t, 1)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(31337), Nonce: 5, GasTipCap: new(big.Int), GasFeeCap: big.NewInt(2e9), Gas: 21000, To: &from, Value: big.NewInt(1)})
	signed, _ := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(31337)), key1)
	if err := ec.SendTransaction(ctx, signed); err == nil || !strings.Contains(err.Error(), "nonce too high") {
		t.Errorf("nonce gap: %v", err)
	}
	other := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: 0, GasTipCap: new(big.Int), GasFeeCap: big.NewInt(2e9), Gas: 21000, To: &from, Value: big.NewInt(1)})
	signed, _ = types.SignTx(other, types.LatestSignerForChainID(big.NewInt(1)), key1)
	if err := ec.SendTransaction(ctx, signed); err == nil || !strings.Contains(err.Error(), "chain id") {
		t.Errorf("other chain's tx: %v", err)
	}
}

func l1Balance(t *testing.T, n *devnet.Network, addr []byte, denom string) string {
	t.Helper()
	l1, _ := n.Chain("initia-devnet-1")
	bals, err := l1.Balances(l1.Height())
	if err != nil {
		t.Fatal(err)
	}
	return bals[denom][hex.EncodeToString(addr)]
}

// moveEvents are the Move events of a block's txs with a tag ending in suffix: their data.
func moveEvents(t *testing.T, n *devnet.Network, from, to int64, suffix string) []map[string]any {
	t.Helper()
	l1, _ := n.Chain("initia-devnet-1")
	var out []map[string]any
	for h := from; h <= to; h++ {
		b, err := l1.Block(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Results {
			for _, ev := range r.Events {
				if ev.Type != moveEventType {
					continue
				}
				var tag, data string
				for _, a := range ev.Attributes {
					if a.Key == "type_tag" {
						tag = a.Value
					} else if a.Key == "data" {
						data = a.Value
					}
				}
				if strings.HasSuffix(tag, suffix) {
					m := map[string]any{}
					if err := json.Unmarshal([]byte(data), &m); err != nil {
						t.Fatal(err)
					}
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// TestLayerZeroEthereumToL1AndBack: a wallet-signed OFT send on Ethereum emits PacketSent
// and OFTSent; the DVN verifies on the L1 only after the delay and the executor delivers
// (PacketVerified, PacketDelivered, OftReceived), the USDT arrives; the L1 account then
// sends it back with MsgExecute oft::send_withdraw and it is unlocked on Ethereum.
func TestLayerZeroEthereumToL1AndBack(t *testing.T) {
	n := lzNet(t, nil)
	eth, _ := n.Ethereum()
	ec, err := ethclient.Dial(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	ctx := t.Context()
	key, from := anvilKey(t, 0)
	l1Key, err := engine.DeriveKey(7, 0, true) // the L1's genesis account 0
	if err != nil {
		t.Fatal(err)
	}
	var to32 [32]byte
	copy(to32[12:], l1Key.Address())
	amount := big.NewInt(2_500_000)

	if r := mined(t, n, ec, ethSend(t, ec, key, devnet.LayerZeroUSDT, nil, pack(t, erc20, "approve", devnet.LayerZeroAdapter, amount), false)); r.Status != 1 {
		t.Fatal("approve failed")
	}
	sp := sendParam{DstEid: devnet.LayerZeroEIDL1, To: to32, AmountLD: amount, MinAmountLD: amount, ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}}
	q := call(t, ec, oftABI, devnet.LayerZeroAdapter, "quoteSend", sp, false)
	quoted := *abi.ConvertType(q[0], new(fee)).(*fee)
	if quoted.NativeFee.Sign() <= 0 {
		t.Fatalf("quote %+v", quoted)
	}
	sendHash := ethSend(t, ec, key, devnet.LayerZeroAdapter, quoted.NativeFee, pack(t, oftABI, "send", sp, quoted, from), false)
	r := mined(t, n, ec, sendHash)
	if r.Status != 1 {
		t.Fatalf("send reverted: %+v", r)
	}
	topic := func(sig string) common.Hash { return crypto.Keccak256Hash([]byte(sig)) }
	var guid common.Hash
	var sent, oftSent int
	for _, l := range r.Logs {
		switch l.Topics[0] {
		case topic("PacketSent(bytes,bytes,address)"):
			sent++
		case topic("OFTSent(bytes32,uint32,address,uint256,uint256)"):
			oftSent++
			guid = l.Topics[1]
			if common.BytesToAddress(l.Topics[2][:]) != from {
				t.Errorf("OFTSent from %s", l.Topics[2])
			}
		}
	}
	if sent != 1 || oftSent != 1 {
		t.Fatalf("logs of the send: %d PacketSent, %d OFTSent", sent, oftSent)
	}
	// The GUID of GUID.sol: nonce 1 on the path adapter → the L1's OFT.
	var b []byte
	b = binary.BigEndian.AppendUint64(b, 1)
	b = binary.BigEndian.AppendUint32(b, devnet.LayerZeroEIDEthereum)
	b = append(b, common.LeftPadBytes(devnet.LayerZeroAdapter.Bytes(), 32)...)
	b = binary.BigEndian.AppendUint32(b, devnet.LayerZeroEIDL1)
	oft, _ := move.ParseAddr(devnet.LayerZeroL1OFT)
	b = append(b, oft[:]...)
	if want := crypto.Keccak256Hash(b); guid != want {
		t.Fatalf("guid %s, want %s", guid, want)
	}
	// eth_getLogs finds it by address and topic.
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{devnet.LayerZeroAdapter},
		Topics: [][]common.Hash{{topic("OFTSent(bytes32,uint32,address,uint256,uint256)")}, {guid}}})
	if err != nil || len(logs) != 1 || logs[0].TxHash != sendHash {
		t.Fatalf("eth_getLogs: %v %v", logs, err)
	}
	l1, _ := n.Chain("initia-devnet-1")
	start := l1.Height()
	// Nothing is verified before the delay (2s = 4 blocks from the send's block).
	for range 3 {
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := n.LayerZero().Stats(); st.Sent != 1 || st.Verified != 0 {
		t.Fatalf("before the delay: %+v", st)
	}
	for i := 0; i < 10 && n.LayerZero().Stats().Delivered == 0; i++ {
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := n.LayerZero().Stats(); st.Delivered != 1 {
		t.Fatalf("not delivered: %+v", st)
	}
	if got := l1Balance(t, n, l1Key.Address(), devnet.LayerZeroL1USDT); got != "2500000" {
		t.Fatalf("L1 USDT balance %q", got)
	}
	recv := moveEvents(t, n, start, l1.Height(), "::oft_core::OftReceived")
	if len(recv) != 1 || recv[0]["guid"] != guid.Hex() || recv[0]["amount_received_ld"] != "2500000" || recv[0]["src_eid"] != float64(devnet.LayerZeroEIDEthereum) {
		t.Fatalf("OftReceived %v", recv)
	}
	if v := moveEvents(t, n, start, l1.Height(), "::channels::PacketVerified"); len(v) != 1 {
		t.Fatalf("PacketVerified %v", v)
	}
	if v := moveEvents(t, n, start, l1.Height(), "::channels::PacketDelivered"); len(v) != 1 || v[0]["nonce"] != "1" {
		t.Fatalf("PacketDelivered %v", v)
	}

	// Back: the L1 account sends 1 USDT to Anvil account 2 on Ethereum.
	_, back := anvilKey(t, 2)
	before := eth.Balance(back)
	usdtBefore, _ := eth.TokenBalance(devnet.LayerZeroUSDT, back)
	fee := l1Quote(t, l1, back)
	msg := &movev1.MsgExecute{Sender: engine.Bech32("init", l1Key.Address()), ModuleAddress: devnet.LayerZeroL1OFT, ModuleName: "oft",
		FunctionName: "send_withdraw", Args: [][]byte{u32(devnet.LayerZeroEIDEthereum), vec(common.LeftPadBytes(back.Bytes(), 32)),
			u64(1_000_000), u64(1_000_000), vec(nil), vec(nil), vec(nil), u64(fee), u64(0)}}
	l1Start := l1.Height() + 1
	broadcastL1(t, n, l1Key, msg)
	if got := l1Balance(t, n, l1Key.Address(), devnet.LayerZeroL1USDT); got != "1500000" {
		t.Fatalf("L1 USDT after the send %q", got)
	}
	ps := moveEvents(t, n, l1Start, l1.Height(), "::channels::PacketSent")
	os := moveEvents(t, n, l1Start, l1.Height(), "::oft_core::OftSent")
	if len(ps) != 1 || len(os) != 1 || os[0]["amount_sent_ld"] != "1000000" || os[0]["dst_eid"] != float64(devnet.LayerZeroEIDEthereum) {
		t.Fatalf("L1 send events %v %v", ps, os)
	}
	for i := 0; i < 12 && n.LayerZero().Stats().Delivered < 2; i++ {
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	usdtAfter, _ := eth.TokenBalance(devnet.LayerZeroUSDT, back)
	if d := new(big.Int).Sub(usdtAfter, usdtBefore); d.Int64() != 1_000_000 {
		t.Fatalf("Ethereum USDT arrived %s (stats %+v)", d, n.LayerZero().Stats())
	}
	if eth.Balance(back).Cmp(before) != 0 {
		t.Error("the recipient paid for its delivery")
	}
	rl, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{devnet.LayerZeroAdapter},
		Topics: [][]common.Hash{{topic("OFTReceived(bytes32,uint32,address,uint256)")}, {common.HexToHash(os[0]["guid"].(string))}, {common.BytesToHash(back.Bytes())}}})
	if err != nil || len(rl) != 1 {
		t.Fatalf("OFTReceived on Ethereum: %v %v", rl, err)
	}
	for _, sig := range []string{"PacketVerified((uint32,bytes32,uint64),address,bytes32)", "PacketDelivered((uint32,bytes32,uint64),address)"} {
		if l, err := ec.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{devnet.LayerZeroEndpoint}, Topics: [][]common.Hash{{topic(sig)}}}); err != nil || len(l) != 1 {
			t.Errorf("%s: %v %v", sig, l, err)
		}
	}
}

// TestLayerZeroNeverDeliver: with the DVN stuck, a packet is sent and never verified however
// many blocks pass; turning delivery on lets it through. An L1 send without USDT aborts as
// the OFT aborts it, and sends nothing.
func TestLayerZeroNeverDeliver(t *testing.T) {
	n := lzNet(t, func(c *devnet.Config) { c.LayerZeroNeverDeliver, c.TestAccounts = true, 1 })
	eth, _ := n.Ethereum()
	ec, err := ethclient.Dial(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	ctx := t.Context()
	accs, err := n.TestAccounts()
	if err != nil {
		t.Fatal(err)
	}
	if bals := accs[0].Balances["initia-devnet-1"]; len(bals) != 3 || bals[2].Denom != devnet.LayerZeroL1USDT {
		t.Fatalf("test account's L1 balances %v", bals)
	}
	k0, _ := engine.DeriveKey(7, 0, true)
	_, back := anvilKey(t, 3)
	msg := &movev1.MsgExecute{Sender: engine.Bech32("init", k0.Address()), ModuleAddress: devnet.LayerZeroL1OFT, ModuleName: "oft",
		FunctionName: "send_withdraw", Args: [][]byte{u32(devnet.LayerZeroEIDEthereum), vec(common.LeftPadBytes(back.Bytes(), 32)),
			u64(5), u64(5), vec(nil), vec(nil), vec(nil), u64(100000), u64(0)}}
	if code, body := broadcastL1Result(t, n, k0, msg); code == 0 || !strings.Contains(body, "::oft, code=2") {
		t.Fatalf("send without USDT: %d %s", code, body)
	}

	key, from := anvilKey(t, 0)
	var to32 [32]byte
	copy(to32[12:], k0.Address())
	amount := big.NewInt(7)
	mined(t, n, ec, ethSend(t, ec, key, devnet.LayerZeroUSDT, nil, pack(t, erc20, "approve", devnet.LayerZeroAdapter, amount), false))
	sp := sendParam{DstEid: devnet.LayerZeroEIDL1, To: to32, AmountLD: amount, MinAmountLD: amount, ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}}
	f := fee{NativeFee: big.NewInt(1e14), LzTokenFee: new(big.Int)}
	// Paying less than the quote reverts (LZ_InsufficientFee) and leaves the allowance.
	low := fee{NativeFee: big.NewInt(1e13), LzTokenFee: new(big.Int)}
	if r := mined(t, n, ec, ethSendGas(t, ec, key, devnet.LayerZeroAdapter, low.NativeFee, pack(t, oftABI, "send", sp, low, from), false, 300_000)); r.Status != 0 || len(r.Logs) != 0 {
		t.Fatalf("underpaid send: status %d, %d logs", r.Status, len(r.Logs))
	}
	if r := mined(t, n, ec, ethSend(t, ec, key, devnet.LayerZeroAdapter, f.NativeFee, pack(t, oftABI, "send", sp, f, from), false)); r.Status != 1 {
		t.Fatal("send reverted")
	}
	for range 30 {
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := n.LayerZero().Stats(); st.Sent != 1 || st.Verified != 0 || st.Delivered != 0 {
		t.Fatalf("stuck DVN: %+v", st)
	}
	if got := l1Balance(t, n, k0.Address(), devnet.LayerZeroL1USDT); got != "" {
		t.Fatalf("USDT arrived through a stuck DVN: %s", got)
	}
	n.LayerZero().SetDeliver(true)
	for range 3 {
		if err := n.ProduceBlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := l1Balance(t, n, k0.Address(), devnet.LayerZeroL1USDT); got != "7" || n.LayerZero().Stats().Delivered != 1 {
		t.Fatalf("after delivery resumed: %q %+v", got, n.LayerZero().Stats())
	}
}

func pack(t *testing.T, a abi.ABI, m string, args ...any) []byte {
	t.Helper()
	b, err := a.Pack(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func vec(b []byte) []byte { return append([]byte{byte(len(b))}, b...) } // lengths < 128 here

// l1Quote asks the L1 OFT's quote_send view over REST (JSON args), as a client quotes the
// messaging fee.
func l1Quote(t *testing.T, l1 *devnet.Chain, to common.Address) uint64 {
	t.Helper()
	body := map[string]any{"address": devnet.LayerZeroL1OFT, "module_name": "oft", "function_name": "quote_send", "type_args": []string{},
		"args": []string{`"0x1"`, "40161", `"0x` + hex.EncodeToString(common.LeftPadBytes(to.Bytes(), 32)) + `"`, `"1000000"`, `"1000000"`, `"0x"`, `"0x"`, `"0x"`, "false"}}
	status, b := post(t, l1.REST()+"/initia/move/v1/view/json", body)
	var res struct {
		Data string `json:"data"`
	}
	if status != 200 || json.Unmarshal(b, &res) != nil {
		t.Fatalf("quote_send: %d %s", status, b)
	}
	var fees []string
	if err := json.Unmarshal([]byte(res.Data), &fees); err != nil || len(fees) != 2 || fees[1] != "0" {
		t.Fatalf("quote_send data %q", res.Data)
	}
	f, err := strconv.ParseUint(fees[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// The BCS form of the same view (POST /initia/move/v1/view, base64 arguments) answers alike.
	var sender [32]byte
	sender[31] = 1
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	bcs := map[string]any{"address": devnet.LayerZeroL1OFT, "module_name": "oft", "function_name": "quote_send", "type_args": []string{},
		"args": []string{b64(sender[:]), b64(u32(devnet.LayerZeroEIDEthereum)), b64(vec(common.LeftPadBytes(to.Bytes(), 32))), b64(u64(1_000_000)),
			b64(u64(1_000_000)), b64(vec(nil)), b64(vec(nil)), b64(vec(nil)), b64([]byte{0})}}
	status, b = post(t, l1.REST()+"/initia/move/v1/view", bcs)
	var bres struct {
		Data string `json:"data"`
	}
	if status != 200 || json.Unmarshal(b, &bres) != nil || bres.Data != res.Data {
		t.Fatalf("quote_send over BCS: %d %s, JSON gave %s", status, b, res.Data)
	}
	return f
}

// broadcastL1Result signs msg with k (account number and sequence read over REST, as a
// wallet does), broadcasts it, produces a block and returns the tx's /tx answer.
func broadcastL1Result(t *testing.T, n *devnet.Network, k *engine.Key, msg proto.Message) (code uint32, body string) {
	t.Helper()
	l1, _ := n.Chain("initia-devnet-1")
	addr := engine.Bech32("init", k.Address())
	_, b := get(t, l1.REST()+"/cosmos/auth/v1beta1/accounts/"+addr)
	var acc struct {
		Account struct {
			AccountNumber string `json:"account_number"`
			Sequence      string `json:"sequence"`
		} `json:"account"`
	}
	if err := json.Unmarshal(b, &acc); err != nil {
		t.Fatalf("account %s: %s", addr, b)
	}
	num, _ := strconv.ParseUint(acc.Account.AccountNumber, 10, 64)
	seq, _ := strconv.ParseUint(acc.Account.Sequence, 10, 64)
	code, log, txBody := deliverTx(t, n, l1, k, num, seq, 1_000_000, msg)
	if txBody == nil {
		return code, log
	}
	return code, string(txBody)
}

func broadcastL1(t *testing.T, n *devnet.Network, k *engine.Key, msg proto.Message) {
	t.Helper()
	if code, body := broadcastL1Result(t, n, k, msg); code != 0 {
		t.Fatalf("L1 tx failed: %d %s", code, body)
	}
}

// TestLayerZeroTimerMode: on the block timer (no ManualBlocks) the Ethereum chain, the L1
// and the bot run on their own goroutines and a send still arrives.
func TestLayerZeroTimerMode(t *testing.T) {
	cfg := standalone()
	cfg.Chains = cfg.Chains[:1]
	cfg.Seed, cfg.BlockInterval, cfg.LayerZero, cfg.LayerZeroDelay = 7, 50*time.Millisecond, true, 150*time.Millisecond
	n, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	eth, _ := n.Ethereum()
	ec, err := ethclient.Dial(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	key, from := anvilKey(t, 0)
	k0, _ := engine.DeriveKey(7, 0, true)
	var to32 [32]byte
	copy(to32[12:], k0.Address())
	amount := big.NewInt(42)
	wait := func(h common.Hash) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if r, err := ec.TransactionReceipt(t.Context(), h); err == nil {
				if r.Status != 1 {
					t.Fatalf("tx %s failed", h)
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("tx %s not mined", h)
	}
	wait(ethSend(t, ec, key, devnet.LayerZeroUSDT, nil, pack(t, erc20, "approve", devnet.LayerZeroAdapter, amount), false))
	sp := sendParam{DstEid: devnet.LayerZeroEIDL1, To: to32, AmountLD: amount, MinAmountLD: amount, ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}}
	f := fee{NativeFee: big.NewInt(1e14), LzTokenFee: new(big.Int)}
	wait(ethSend(t, ec, key, devnet.LayerZeroAdapter, f.NativeFee, pack(t, oftABI, "send", sp, f, from), false))
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && l1Balance(t, n, k0.Address(), devnet.LayerZeroL1USDT) != "42" {
		time.Sleep(50 * time.Millisecond)
	}
	if got := l1Balance(t, n, k0.Address(), devnet.LayerZeroL1USDT); got != "42" {
		t.Fatalf("L1 USDT %q, stats %+v", got, n.LayerZero().Stats())
	}
}

// TestLayerZeroThenDeposit: USDT that arrived on the L1 over LayerZero is deposited to the
// Move rollup over OPinit and lands as the l2/ denom the registry lists there.
func TestLayerZeroThenDeposit(t *testing.T) {
	n := lzNet(t, func(c *devnet.Config) {
		c.Chains = []devnet.ChainSpec{{ChainID: "initia-devnet-1", Kind: devnet.KindL1}, {ChainID: "minimove-devnet-1", Kind: devnet.KindMove}}
		c.Bridges = true
	})
	eth, _ := n.Ethereum()
	ec, err := ethclient.Dial(eth.JSONRPC())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	key, from := anvilKey(t, 0)
	k0, _ := engine.DeriveKey(7, 0, true)
	var to32 [32]byte
	copy(to32[12:], k0.Address())
	amount := big.NewInt(900)
	mined(t, n, ec, ethSend(t, ec, key, devnet.LayerZeroUSDT, nil, pack(t, erc20, "approve", devnet.LayerZeroAdapter, amount), false))
	sp := sendParam{DstEid: devnet.LayerZeroEIDL1, To: to32, AmountLD: amount, MinAmountLD: amount, ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}}
	f := fee{NativeFee: big.NewInt(1e14), LzTokenFee: new(big.Int)}
	mined(t, n, ec, ethSend(t, ec, key, devnet.LayerZeroAdapter, f.NativeFee, pack(t, oftABI, "send", sp, f, from), false))
	for i := 0; i < 12 && l1Balance(t, n, k0.Address(), devnet.LayerZeroL1USDT) != "900"; i++ {
		if err := n.ProduceBlock(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	addr := engine.Bech32("init", k0.Address())
	// The only rollup of this network is bridge 1 (the default network's minimove is 2).
	broadcastL1(t, n, k0, &ophostv1.MsgInitiateTokenDeposit{Sender: addr, BridgeId: 1, To: addr, Amount: &basev1beta1.Coin{Denom: devnet.LayerZeroL1USDT, Amount: "900"}})
	l2 := denom.L2(1, devnet.LayerZeroL1USDT)
	mm, _ := n.Chain("minimove-devnet-1")
	var got string
	for i := 0; i < 10 && got != "900"; i++ {
		if err := n.ProduceBlock(t.Context()); err != nil {
			t.Fatal(err)
		}
		bals, err := mm.Balances(mm.Height())
		if err != nil {
			t.Fatal(err)
		}
		got = bals[l2][hex.EncodeToString(k0.Address())]
	}
	if got != "900" {
		t.Fatalf("minimove %s balance %q", l2, got)
	}
}

// moveEventType is the ABCI event type of a Move module event.
const moveEventType = "move"
