package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The selectors clients put in calldata (minievm's ERC20Wrapper.go bindings, ERC-20 approve).
func TestWrapperSelectors(t *testing.T) {
	for _, c := range []struct{ sig, want string }{
		{"approve(address,uint256)", "095ea7b3"},
		{"toLocal(address,string,uint8)", "701dcf21"},
		{"toLocal(address,string,uint256,uint8)", "1efd1a84"},
		{"toRemote(address,string,uint256)", "cf9ee0c3"},
		{"toRemoteAndOPWithdraw(string,string,uint256)", "b9cf3742"},
		{"toRemoteAndOPWithdraw(string,string,uint256,uint64)", "0423d4d8"},
	} {
		if got := hex.EncodeToString(crypto.Keccak256([]byte(c.sig))[:4]); got != c.want {
			t.Errorf("%s: %s, want %s", c.sig, got, c.want)
		}
	}
	for name, want := range map[string]string{"approve": "095ea7b3", "toLocal": "701dcf21", "toLocal0": "1efd1a84", "toRemote": "cf9ee0c3",
		"toRemoteAndOPWithdraw": "b9cf3742", "toRemoteAndOPWithdraw0": "0423d4d8",
		"toRemoteAndIBCTransfer": "24721917", "toRemoteAndIBCTransfer0": "f787cbdd"} {
		if got := hex.EncodeToString(selector(name)); got != want {
			t.Errorf("ABI %s: %s, want %s", name, got, want)
		}
	}
}

// wrapChain is an EVM chain with one extra funded account (outside the traffic's accounts,
// so the test alone moves its sequence) and the launch of one bridged denom.
func wrapChain(t *testing.T) (*engine.Chain, *engine.Key) {
	c, k, _ := wrapChainModule(t)
	return c, k
}

func wrapChainModule(t *testing.T) (*engine.Chain, *engine.Key, *Module) {
	t.Helper()
	m := New(Config{GenesisDenoms: []string{"uusdc"}, MaxTxsPerBlock: 1})
	gas, _ := new(big.Int).SetString("1000000000000000000000000", 10)
	user, err := engine.DeriveKey(99, 700, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.New(engine.Config{
		ChainID: "minievm-test-1", Kind: engine.KindEVM, Seed: 3,
		AccountCoins: []engine.Coin{{Denom: "GAS", Amount: gas}, {Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)}},
		ExtraAccounts: []engine.GenesisAccount{{Address: user.Address(), Coins: []engine.Coin{
			{Denom: "GAS", Amount: gas}, {Denom: "l2/abc", Amount: big.NewInt(5_000_000)}}}},
		Modules: []sim.Module{m, Launch{Denoms: []string{"l2/abc"}}}, Bank: Flavor{}, Signer: m.Signer(), Verifier: m.Verifier(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, user, m
}

// send signs msgs with SIGN_MODE_DIRECT at the given sequence, produces a block and returns
// the tx's result.
func send(t *testing.T, c *engine.Chain, k *engine.Key, seq uint64, msgs ...proto.Message) engine.TxResult {
	t.Helper()
	num, _, _ := c.AccountState(k.Address())
	raw, err := engine.SignDirect(c.Config().ChainID, k, num, seq, msgs, "", engine.Fee{GasLimit: 5_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.BroadcastTxSync(raw); r.Code != 0 {
		return engine.TxResult{Code: r.Code, Log: r.Log}
	}
	b, err := c.ProduceBlock()
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range b.Txs {
		if bytes.Equal(tx, raw) {
			return b.Results[i]
		}
	}
	t.Fatal("tx not in the block")
	return engine.TxResult{}
}

func call(t *testing.T, from *engine.Key, to common.Address, fn string, args ...any) *evmv1.MsgCall {
	t.Helper()
	in, err := Pack(fn, args...)
	if err != nil {
		t.Fatal(err)
	}
	return &evmv1.MsgCall{Sender: engine.Bech32("init", from.Address()), ContractAddr: to.Hex(), Input: hexutilEncode(in), Value: "0"}
}

// The op hook's two calls in one tx: approve, then the no-amount toLocal converts
// min(allowance, balance) at 10^12 per unit, and the tx consumes two sequences (minievm's
// MsgCall rule). toRemote unwraps and refuses dust.
func TestWrapperRoundTrip(t *testing.T) {
	c, user := wrapChain(t)
	q, _ := c.Query(c.Height())
	wrapped := WrappedDenom("l2/abc")
	if _, ok := getContract(q.Store(StoreName), WrappedAddress("l2/abc", 6)); !ok {
		t.Fatal("the launch did not create the wrapped token")
	}
	recv := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	remote := DenomContract("l2/abc")
	_, seq, _ := c.AccountState(user.Address())
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	allowance := big.NewInt(3_000_000)
	if r := send(t, c, user, seq, call(t, user, remote, "approve", WrapperAddress, allowance),
		call(t, user, WrapperAddress, "toLocal", recv, "l2/abc", uint8(6))); r.Code != 0 {
		t.Fatalf("approve+toLocal: %d %s", r.Code, r.Log)
	}
	q, _ = c.Query(c.Height())
	if got := q.Balance(recv.Bytes(), wrapped); got.Cmp(new(big.Int).Mul(allowance, big.NewInt(1e12))) != 0 {
		t.Errorf("wrapped balance %s", got)
	}
	if got := q.Balance(user.Address(), "l2/abc"); got.Int64() != 2_000_000 {
		t.Errorf("remote balance left %s, want 2000000 (allowance below balance)", got)
	}
	if _, got, _ := c.AccountState(user.Address()); got != seq+2 {
		t.Fatalf("sequence %d after two MsgCalls, want %d", got, seq+2)
	}
	// A tx signed at seq+1 (one per tx) is refused.
	if r := send(t, c, user, seq+1, call(t, user, remote, "approve", WrapperAddress, max)); r.Code != 32 {
		t.Errorf("stale sequence: code %d %s", r.Code, r.Log)
	}
	// The rest: max allowance, balance is the limit.
	seq += 2
	if r := send(t, c, user, seq, call(t, user, remote, "approve", WrapperAddress, max),
		call(t, user, WrapperAddress, "toLocal", common.BytesToAddress(user.Address()), "l2/abc", uint8(6))); r.Code != 0 {
		t.Fatalf("second toLocal: %s", r.Log)
	}
	seq += 2
	q, _ = c.Query(c.Height())
	if got := q.Balance(user.Address(), wrapped); got.Cmp(new(big.Int).Mul(big.NewInt(2_000_000), big.NewInt(1e12))) != 0 {
		t.Errorf("user wrapped %s", got)
	}
	for _, tc := range []struct {
		name   string
		amount *big.Int
		code   uint32
	}{
		{"dust", big.NewInt(1_500_000_000_000), 23},
		{"whole units", big.NewInt(1_000_000_000_000_000), 0},
	} {
		r := send(t, c, user, seq, call(t, user, WrappedAddress("l2/abc", 6), "approve", WrapperAddress, tc.amount),
			call(t, user, WrapperAddress, "toRemote", recv, wrapped, tc.amount))
		if r.Code != tc.code {
			t.Errorf("%s: code %d %s", tc.name, r.Code, r.Log)
		}
		_, seq, _ = c.AccountState(user.Address())
	}
	q, _ = c.Query(c.Height())
	if got := q.Balance(recv.Bytes(), "l2/abc"); got.Int64() != 1000 {
		t.Errorf("unwrapped %s, want 1000", got)
	}
}

// toRemoteAndOPWithdraw: approve + the call (two MsgCalls, as a source tx leaving minievm
// holds them) unwraps and has the wrapper send the withdrawal of the remote coin.
func TestWrapperOPWithdraw(t *testing.T) {
	c, user, m := wrapChainModule(t)
	var sent []*opchildv1.MsgInitiateTokenWithdrawal
	m.SetCosmosExecutor(func(env sim.Env, msg proto.Message) error {
		w, ok := msg.(*opchildv1.MsgInitiateTokenWithdrawal)
		if !ok {
			return fmt.Errorf("unexpected %T", msg)
		}
		sent = append(sent, w)
		return nil
	})
	_, seq, _ := c.AccountState(user.Address())
	me := common.BytesToAddress(user.Address())
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	if r := send(t, c, user, seq, call(t, user, DenomContract("l2/abc"), "approve", WrapperAddress, max),
		call(t, user, WrapperAddress, "toLocal", me, "l2/abc", uint8(6))); r.Code != 0 {
		t.Fatalf("wrap: %s", r.Log)
	}
	local := new(big.Int).Mul(big.NewInt(700), big.NewInt(1e12))
	if r := send(t, c, user, seq+2, call(t, user, WrappedAddress("l2/abc", 6), "approve", WrapperAddress, local),
		call(t, user, WrapperAddress, "toRemoteAndOPWithdraw", "init1receiver", WrappedDenom("l2/abc"), local)); r.Code != 0 {
		t.Fatalf("toRemoteAndOPWithdraw: %s", r.Log)
	}
	wrapper, _ := address.Bech32("init", WrapperAddress.Bytes())
	if len(sent) != 1 || sent[0].Sender != wrapper || sent[0].To != "init1receiver" || sent[0].Amount.Denom != "l2/abc" || sent[0].Amount.Amount != "700" {
		t.Fatalf("withdrawals %v", sent)
	}
	q, _ := c.Query(c.Height())
	// toRemote unlocked the 700 to the wrapper itself (the withdrawal's sender); the fake
	// executor took nothing, so the wrapper still holds all it locked. The user's wrapped
	// balance fell by the amount.
	if got := q.Balance(WrapperAddress.Bytes(), "l2/abc"); got.Int64() != 5_000_000 {
		t.Errorf("wrapper holds %s", got)
	}
	if got := q.Balance(user.Address(), WrappedDenom("l2/abc")); got.Cmp(new(big.Int).Mul(big.NewInt(5_000_000-700), big.NewInt(1e12))) != 0 {
		t.Errorf("user wrapped %s", got)
	}
	if _, got, _ := c.AccountState(user.Address()); got != seq+4 {
		t.Errorf("sequence %d, want %d", got, seq+4)
	}
}

// toRemoteAndIBCTransfer: the wrapper sends the remote coin with an async callback to itself
// in the memo; a failure acknowledgement (ibc_ack false, from the wrapper) mints the local
// tokens back, once; nobody else may call the callbacks.
func TestWrapperIBCTransferRefund(t *testing.T) {
	c, user, m := wrapChainModule(t)
	wrapper, _ := address.Bech32("init", WrapperAddress.Bytes())
	var sent *transferv1.MsgTransfer
	var acks []uint32
	m.SetCosmosExecutor(func(env sim.Env, msg proto.Message) error {
		tr, ok := msg.(*transferv1.MsgTransfer)
		if !ok {
			return fmt.Errorf("unexpected %T", msg)
		}
		sent = tr
		var memo struct {
			EVM struct {
				AsyncCallback struct {
					ID              uint64 `json:"id"`
					ContractAddress string `json:"contract_address"`
				} `json:"async_callback"`
			} `json:"evm"`
			Forward json.RawMessage `json:"forward"`
		}
		if err := json.Unmarshal([]byte(tr.Memo), &memo); err != nil || len(memo.Forward) == 0 ||
			!strings.EqualFold(memo.EVM.AsyncCallback.ContractAddress, WrapperAddress.Hex()) {
			return fmt.Errorf("memo %s", tr.Memo)
		}
		// The chain acknowledges with an error: the ibc module calls ibc_ack(id, false) as the
		// packet's sender, the wrapper; a second time, and from anyone else, it reverts.
		ack, _ := Pack("ibc_ack", memo.EVM.AsyncCallback.ID, false)
		for _, from := range []string{wrapper, wrapper, engine.Bech32("init", user.Address())} {
			err := m.handleCall(env, &evmv1.MsgCall{Sender: from, ContractAddr: WrapperAddress.Hex(), Input: hexutilEncode(ack), Value: "0"})
			code := uint32(0)
			if err != nil {
				code = 23
			}
			acks = append(acks, code)
		}
		return nil
	})
	_, seq, _ := c.AccountState(user.Address())
	me := common.BytesToAddress(user.Address())
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	if r := send(t, c, user, seq, call(t, user, DenomContract("l2/abc"), "approve", WrapperAddress, max),
		call(t, user, WrapperAddress, "toLocal", me, "l2/abc", uint8(6))); r.Code != 0 {
		t.Fatalf("wrap: %s", r.Log)
	}
	q, _ := c.Query(c.Height())
	before := q.Balance(user.Address(), WrappedDenom("l2/abc"))
	local := new(big.Int).Mul(big.NewInt(300), big.NewInt(1e12))
	if r := send(t, c, user, seq+2, call(t, user, WrappedAddress("l2/abc", 6), "approve", WrapperAddress, local),
		call(t, user, WrapperAddress, "toRemoteAndIBCTransfer0", WrappedDenom("l2/abc"), local, "channel-0", "init1pfm", big.NewInt(99), `{"forward":{"receiver":"x"}}`)); r.Code != 0 {
		t.Fatalf("toRemoteAndIBCTransfer: %s", r.Log)
	}
	if sent == nil || sent.Sender != wrapper || sent.SourceChannel != "channel-0" || sent.Receiver != "init1pfm" ||
		sent.Token.Denom != "l2/abc" || sent.Token.Amount != "300" || sent.TimeoutTimestamp != 99 {
		t.Fatalf("transfer %v", sent)
	}
	if len(acks) != 3 || acks[0] != 0 || acks[1] == 0 || acks[2] == 0 {
		t.Fatalf("callback results %v, want success then two reverts", acks)
	}
	q, _ = c.Query(c.Height())
	if got := q.Balance(user.Address(), WrappedDenom("l2/abc")); got.Cmp(before) != 0 {
		t.Errorf("after the refund the user holds %s wrapped, before %s", got, before)
	}
}
