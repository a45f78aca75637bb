package engine

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
func b64(b []byte) string                 { return base64.StdEncoding.EncodeToString(b) }
func sortStrings(s []string)              { sort.Strings(s) }

func putAccount(o *overlay, addr []byte, a account) {
	b, err := json.Marshal(a)
	if err != nil {
		// account holds only integers, strings and bytes: Marshal cannot fail on it.
		panic(fmt.Sprintf("engine: encode account: %v", err))
	}
	o.set("auth/a/"+hex.EncodeToString(addr), b)
}

// Env is the engine's sim.Env, with every extra of sim (modules declare the ones they need;
// New checks them).
type Env struct {
	c        *Chain
	o        *overlay
	height   int64
	time     time.Time
	txHash   []byte
	events   []sim.Event
	gas      uint64
	response *anypb.Any
	txIndex  uint32
	seqFlag  *bool
	// bank, when set, renders bank movements instead of the chain's flavour (a simulation's
	// fork of it).
	bank sim.BankFlavor
	// simulating is set while a simulated tx executes (sim.Simulation).
	simulating bool
}

// Simulating implements sim.Simulation.
func (e *Env) Simulating() bool { return e.simulating }

// SequenceIncremented is minievm's CONTEXT_KEY_SEQUENCE_INCREMENTED for the executing tx:
// true while the ante's sequence increment has not been consumed by an EVM message (nil
// outside DeliverTx). minievm's MsgCall clears it on the first call and adds 1 to the
// sender's sequence on every later one (initia-labs/minievm@3470dff:
// x/evm/keeper/msg_server.go handleSequenceIncremented, app/ante/sequence.go).
func (e *Env) SequenceIncremented() *bool { return e.seqFlag }

// AddSequence adds delta to an account's sequence in the auth store kv (a module's view of
// "auth", e.g. env.Store("auth")); false when there is no such account.
func AddSequence(kv sim.KV, addr []byte, delta uint64) bool {
	k := "a/" + hex.EncodeToString(addr)
	b, ok := kv.Get(k)
	if !ok {
		return false
	}
	var a account
	if jsonUnmarshal(b, &a) != nil {
		return false
	}
	a.Sequence += delta
	nb, err := json.Marshal(a)
	if err != nil {
		return false
	}
	kv.Set(k, nb)
	return true
}

// TxIndex is the executing tx's position in its block (wasmd records it in contract info).
func (e *Env) TxIndex() uint32 { return e.txIndex }

func (c *Chain) newEnv(o *overlay, height int64, t time.Time, txHash []byte) *Env {
	return &Env{c: c, o: o, height: height, time: t, txHash: txHash}
}

// Env offers every extra of sim.
var _ sim.Host = (*Env)(nil)

func (e *Env) ChainID() string          { return e.c.cfg.ChainID }
func (e *Env) Height() int64            { return e.height }
func (e *Env) Time() time.Time          { return e.time }
func (e *Env) TxHash() []byte           { return e.txHash }
func (e *Env) AddressPrefix() string    { return e.c.cfg.Bech32Prefix }
func (e *Env) Emit(ev sim.Event)        { e.events = append(e.events, ev) }
func (e *Env) ConsumeGas(amount uint64) { e.gas += amount }
func (e *Env) Store(module string) sim.KV {
	return moduleKV{o: e.o, prefix: module + "/"}
}
func (e *Env) Balance(addr []byte, denom string) *big.Int { return balanceIn(e.o, addr, denom) }

// Kind is the chain kind (modules may behave per kind).
func (e *Env) Kind() Kind { return e.c.cfg.Kind }

// FeeDenom is the chain's fee denom.
func (e *Env) FeeDenom() string { return e.c.cfg.FeeDenom }

// SetMsgResponse sets the Msg response the tx result's data carries for the current message.
func (e *Env) SetMsgResponse(m proto.Message) {
	a, err := PackAny(m)
	if err != nil {
		return
	}
	e.response = a
}

// AdjustBalance changes a balance (and the supply) without emitting bank events; VMs whose
// own events describe the movement (EVM ERC-20 logs) use it.
func (e *Env) AdjustBalance(addr []byte, denom string, delta *big.Int) error {
	bal := e.Balance(addr, denom)
	nb := new(big.Int).Add(bal, delta)
	if nb.Sign() < 0 {
		return sdkErr(codeInsufficientFunds, fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds", bal, denom, new(big.Int).Neg(delta), denom))
	}
	e.setBalance(addr, denom, nb)
	sup := e.supply(denom)
	e.o.set("bank/s/"+denom, []byte(new(big.Int).Add(sup, delta).String()))
	e.ensureAccount(addr)
	return nil
}

// EnsureAccount creates the auth account of an address if missing.
func (e *Env) EnsureAccount(addr []byte) { e.ensureAccount(addr) }

func (e *Env) supply(denom string) *big.Int {
	b, ok := e.o.get("bank/s/" + denom)
	if !ok {
		return new(big.Int)
	}
	v, ok := new(big.Int).SetString(string(b), 10)
	if !ok {
		return new(big.Int) // the engine writes supplies as decimal strings only
	}
	return v
}

func (e *Env) setBalance(addr []byte, denom string, v *big.Int) {
	key := "bank/b/" + hex.EncodeToString(addr) + "/" + denom
	if v.Sign() == 0 {
		e.o.del(key)
		return
	}
	e.o.set(key, []byte(v.String()))
}

func (e *Env) ensureAccount(addr []byte) {
	if _, ok := getAccount(e.o, addr); ok {
		return
	}
	var n uint64
	if b, ok := e.o.get("auth/next"); ok {
		_, _ = fmt.Sscan(string(b), &n) // written just below as a decimal: it always parses
	}
	e.o.set("auth/next", []byte(fmt.Sprint(n+1)))
	putAccount(e.o, addr, account{Number: n})
}

func validCoins(coins []Coin) error {
	for _, c := range coins {
		if c.Amount == nil || c.Amount.Sign() <= 0 || c.Denom == "" {
			return sdkErr(codeInvalidCoins, fmt.Sprintf("%s: invalid coins", CoinsString(coins)))
		}
	}
	return nil
}

func (e *Env) move(from, to []byte, coins []Coin) error {
	for _, c := range coins {
		bal := e.Balance(from, c.Denom)
		if bal.Cmp(c.Amount) < 0 {
			return sdkErr(codeInsufficientFunds, fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds", bal, c.Denom, c.Amount, c.Denom))
		}
	}
	for _, c := range coins {
		e.setBalance(from, c.Denom, new(big.Int).Sub(e.Balance(from, c.Denom), c.Amount))
		e.setBalance(to, c.Denom, new(big.Int).Add(e.Balance(to, c.Denom), c.Amount))
	}
	e.ensureAccount(to)
	return nil
}

func (e *Env) flavor() sim.BankFlavor {
	if e.bank != nil {
		return e.bank
	}
	if e.c.cfg.Bank != nil {
		return e.c.cfg.Bank
	}
	return PlainBank{}
}

// sendRaw moves coins and emits the flavour's send events.
func (e *Env) sendRaw(from, to []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	if err := e.move(from, to, coins); err != nil {
		return err
	}
	e.events = append(e.events, e.flavor().SendEvents(e.c.cfg.Bech32Prefix, from, to, coins)...)
	return nil
}

// Send implements sim.Env.
func (e *Env) Send(from, to []byte, coins []Coin) error {
	e.gas += gasPerSend * uint64(len(coins))
	return e.sendRaw(from, to, coins)
}

func (e *Env) mintQuiet(to []byte, coins []Coin) error {
	for _, c := range coins {
		if err := e.AdjustBalance(to, c.Denom, c.Amount); err != nil {
			return err
		}
	}
	return nil
}

// Mint implements sim.Env.
func (e *Env) Mint(to []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	e.gas += gasPerSend * uint64(len(coins))
	if err := e.mintQuiet(to, coins); err != nil {
		return err
	}
	e.events = append(e.events, e.flavor().MintEvents(e.c.cfg.Bech32Prefix, to, coins)...)
	return nil
}

// Burn implements sim.Env.
func (e *Env) Burn(from []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	e.gas += gasPerSend * uint64(len(coins))
	for _, c := range coins {
		if err := e.AdjustBalance(from, c.Denom, new(big.Int).Neg(c.Amount)); err != nil {
			return err
		}
	}
	e.events = append(e.events, e.flavor().BurnEvents(e.c.cfg.Bech32Prefix, from, coins)...)
	return nil
}

// PlainBank renders x/bank events as the stock SDK 0.50 bank keeper emits them.
type PlainBank struct{}

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

// SendEvents implements sim.BankFlavor.
func (PlainBank) SendEvents(prefix string, from, to []byte, coins []Coin) []sim.Event {
	amt := CoinsString(coins)
	f, t := Bech32(prefix, from), Bech32(prefix, to)
	return []sim.Event{
		{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", f), attr("amount", amt)}},
		{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", t), attr("amount", amt)}},
		{Type: "transfer", Attributes: []sim.Attribute{attr("recipient", t), attr("sender", f), attr("amount", amt)}},
		{Type: "message", Attributes: []sim.Attribute{attr("sender", f)}},
	}
}

// MintEvents implements sim.BankFlavor.
func (PlainBank) MintEvents(prefix string, to []byte, coins []Coin) []sim.Event {
	amt := CoinsString(coins)
	t := Bech32(prefix, to)
	return []sim.Event{
		{Type: "coin_received", Attributes: []sim.Attribute{attr("receiver", t), attr("amount", amt)}},
		{Type: "coinbase", Attributes: []sim.Attribute{attr("minter", t), attr("amount", amt)}},
	}
}

// BurnEvents implements sim.BankFlavor.
func (PlainBank) BurnEvents(prefix string, from []byte, coins []Coin) []sim.Event {
	amt := CoinsString(coins)
	f := Bech32(prefix, from)
	return []sim.Event{
		{Type: "coin_spent", Attributes: []sim.Attribute{attr("spender", f), attr("amount", amt)}},
		{Type: "burn", Attributes: []sim.Attribute{attr("burner", f), attr("amount", amt)}},
	}
}

func (c *Chain) handleMsgSend(env sim.Env, msg *bankv1beta1.MsgSend) error {
	from, err := ParseAddress(c.cfg.Bech32Prefix, msg.GetFromAddress())
	if err != nil {
		return sdkErr(codeInvalidAddress, "invalid from address: "+err.Error()+": invalid address")
	}
	to, err := ParseAddress(c.cfg.Bech32Prefix, msg.GetToAddress())
	if err != nil {
		return sdkErr(codeInvalidAddress, "invalid to address: "+err.Error()+": invalid address")
	}
	coins, err := CoinsOf(msg.GetAmount())
	if err != nil {
		return sdkErr(codeInvalidCoins, err.Error()+": invalid coins")
	}
	return env.Send(from, to, coins)
}

func (c *Chain) handleMultiSend(env sim.Env, msg *bankv1beta1.MsgMultiSend) error {
	if c.cfg.Kind == KindEVM {
		// minievm disables MsgMultiSend; the fixture's failure reads exactly like this.
		return fmt.Errorf("rpc error: code = Unimplemented desc = not supported")
	}
	ins, outs := msg.GetInputs(), msg.GetOutputs()
	if len(ins) != 1 {
		return &sim.CodedError{Codespace: codespaceBank, Code: codeBankMultipleSenders, Log: "multiple senders not allowed"}
	}
	from, err := ParseAddress(c.cfg.Bech32Prefix, ins[0].GetAddress())
	if err != nil {
		return sdkErr(codeInvalidAddress, err.Error()+": invalid address")
	}
	for _, o := range outs {
		to, err := ParseAddress(c.cfg.Bech32Prefix, o.GetAddress())
		if err != nil {
			return sdkErr(codeInvalidAddress, err.Error()+": invalid address")
		}
		coins, err := CoinsOf(o.GetCoins())
		if err != nil {
			return err
		}
		if err := env.Send(from, to, coins); err != nil {
			return err
		}
	}
	return nil
}

// SendQuiet moves coins without bank events (VMs that describe the movement with their own
// events; the move.QuietBank contract).
func (e *Env) SendQuiet(from, to []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	e.gas += gasPerSend * uint64(len(coins))
	return e.move(from, to, coins)
}

// MintQuiet mints coins without bank events.
func (e *Env) MintQuiet(to []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	return e.mintQuiet(to, coins)
}

// BurnQuiet burns coins without bank events.
func (e *Env) BurnQuiet(from []byte, coins []Coin) error {
	if err := validCoins(coins); err != nil {
		return err
	}
	for _, c := range coins {
		if err := e.AdjustBalance(from, c.Denom, new(big.Int).Neg(c.Amount)); err != nil {
			return err
		}
	}
	return nil
}
