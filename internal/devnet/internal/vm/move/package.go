package move

import (
	"encoding/base64"
	"fmt"
	"math/big"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Package is a Move package published at an address other than the standard library's (a
// bridge's modules, such as LayerZero's endpoint and an OFT): its entry functions run
// through MsgExecute/MsgExecuteJSON and its views through the view routes, as the standard
// library's do, with the same argument decoding, events and fungible-asset moves. The
// package is Go, like the rest of the simulated VM.
type Package interface {
	// Entry is module::fn's entry function and its gas (ok false: the VM's
	// FUNCTION_RESOLUTION_FAILURE).
	Entry(module, function string) (fn func(*Call) error, gas uint64, ok bool)
	// View answers module::fn as the view's JSON text (ok false: not a view of the package).
	View(q sim.Query, module, function string, args *Args) (data string, ok bool, err error)
}

// WithPackage publishes p at addr.
func WithPackage(addr Addr, p Package) Option {
	return func(m *Module) {
		if m.packages == nil {
			m.packages = map[Addr]Package{}
		}
		m.packages[addr] = p
	}
}

// Args are an entry function's or view's arguments, BCS or JSON.
type Args struct{ a args }

// U8 .. Bytes read argument i as that Move type (vector<u8> for Bytes).
func (a *Args) U8(i int) (uint8, error)     { return a.a.u8(i) }
func (a *Args) U16(i int) (uint16, error)   { return a.a.u16(i) }
func (a *Args) U32(i int) (uint32, error)   { return a.a.u32(i) }
func (a *Args) U64(i int) (uint64, error)   { return a.a.u64(i) }
func (a *Args) Bool(i int) (bool, error)    { return a.a.boolean(i) }
func (a *Args) Addr(i int) (Addr, error)    { return a.a.addr(i) }
func (a *Args) Bytes(i int) ([]byte, error) { return a.a.bytes(i) }

// Len is the number of arguments.
func (a *Args) Len() int { return a.a.n() }

// BadArgs is the VM's error for arguments it cannot deserialize.
func BadArgs(err error) error { return badArgs(err) }

// ArgsErr is BadArgs of the first of errs that is not nil (the argument the VM fails on
// first), or nil when every argument read.
func ArgsErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return badArgs(err)
		}
	}
	return nil
}

// AbortAt is a Move abort in module of the package at addr, as x/move reports it.
func AbortAt(addr Addr, module string, code uint64) error {
	return &sim.CodedError{Codespace: "undefined", Code: 1,
		Log: fmt.Sprintf("VM aborted: location=%s::%s, code=%d", addr.Hex(), module, code)}
}

// Field is one field of a Move event: a string (numbers above u32 and addresses as the VM
// prints them), a uint32 or smaller (a JSON number), or a nested []Field.
type Field struct {
	Name  string
	Value any
}

// Call is one entry function call of a Package.
type Call struct {
	c    *call
	Args *Args
}

// Sender is the signer.
func (c *Call) Sender() Addr { return c.c.sender }

// Env is the chain environment the call runs in.
func (c *Call) Env() sim.Env { return c.c.env }

// Emit emits a Move event with its type tag and fields, as x/move renders it.
func (c *Call) Emit(typeTag string, fields ...Field) {
	kvs := make([]kv, len(fields))
	for i, f := range fields {
		kvs[i] = kv{f.Name, fieldValue(f.Value)}
	}
	c.c.emit(moveEvent(typeTag, kvs...))
}

func fieldValue(v any) any {
	if fs, ok := v.([]Field); ok {
		out := make([]kv, len(fs))
		for i, f := range fs {
			out[i] = kv{f.Name, fieldValue(f.Value)}
		}
		return out
	}
	return v
}

// Withdraw takes amount of the fungible asset meta from the sender's primary store into
// the package (the withdraw events), failing with the VM's insufficient-balance abort.
func (c *Call) Withdraw(meta Addr, amount uint64) error {
	denom, ok := c.c.m.denomOf(c.c.kv, meta)
	if !ok {
		return abort("object", codeObjectMissing)
	}
	amt := new(big.Int).SetUint64(amount)
	if c.c.env.Balance(c.c.sender.Account(), denom).Cmp(amt) < 0 {
		return abort("fungible_asset", codeInsufficientBalance)
	}
	c.c.emit(withdrawEvents(c.c.sender, meta, amt.String())...)
	q, err := sim.As[sim.QuietBank](c.c.env)
	if err != nil {
		return err
	}
	return q.BurnQuiet(c.c.sender.Account(), []sim.Coin{{Denom: denom, Amount: amt}})
}

// BurnEvent is the fungible asset's burn of what Withdraw took, and the supply it lowers.
func (c *Call) BurnEvent(meta Addr, amount uint64) error {
	var rec metadataRec
	if !getJSON(c.c.kv, keyMeta(meta), &rec) {
		return abort("object", codeObjectMissing)
	}
	if s, ok := new(big.Int).SetString(rec.Supply, 10); ok {
		rec.Supply = s.Sub(s, new(big.Int).SetUint64(amount)).String()
	}
	if err := putJSON(c.c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	c.c.emit(moveEvent(tagFABurn, kv{"metadata_addr", meta.String()}, kv{"amount", new(big.Int).SetUint64(amount).String()}))
	return nil
}

// MintTo mints amount of meta to a primary store, the way the asset's mint ref does (mint
// and deposit events, the store's creation the first time), whoever owns the metadata.
func (c *Call) MintTo(to, meta Addr, amount uint64) error {
	var rec metadataRec
	if !getJSON(c.c.kv, keyMeta(meta), &rec) {
		return abort("object", codeObjectMissing)
	}
	supply, _ := new(big.Int).SetString(rec.Supply, 10)
	if supply == nil {
		supply = new(big.Int)
	}
	amt := new(big.Int).SetUint64(amount)
	rec.Supply = supply.Add(supply, amt).String()
	if err := putJSON(c.c.kv, keyMeta(meta), rec); err != nil {
		return err
	}
	denom := MoveDenom(meta)
	c.c.emit(moveEvent(tagFAMint, kv{"metadata_addr", meta.String()}, kv{"amount", amt.String()}))
	c.c.ensureStore(to, meta, denom)
	c.c.emit(depositEvents(to, meta, amt.String())...)
	q, err := sim.As[sim.QuietBank](c.c.env)
	if err != nil {
		return err
	}
	return q.MintQuiet(to.Account(), []sim.Coin{{Denom: denom, Amount: amt}})
}

// PayCoin moves amount of a bank denom (the messaging fee in the fee token) from the
// sender to an account, with the fungible-asset events.
func (c *Call) PayCoin(to Addr, denom string, amount uint64) error {
	if amount == 0 {
		return nil
	}
	return c.c.faTransfer(to, CoinMetadata(denom), amount)
}

// RegisterAsset writes a fungible asset's metadata object at genesis (a bridge's token
// whose metadata address its package fixes), owned by owner.
func RegisterAsset(env sim.Env, meta, owner Addr, name, symbol string, decimals uint8) error {
	kvs := env.Store(StoreName)
	rec := metadataRec{Name: name, Symbol: symbol, Decimals: decimals, Creator: owner.Hex(), Supply: "0"}
	if err := putJSON(kvs, keyMeta(meta), rec); err != nil {
		return err
	}
	if err := putJSON(kvs, keyObj(meta), objectRec{Owner: owner.Hex(), Kind: kindMetadata}); err != nil {
		return err
	}
	kvs.Set(keyDenom(meta), []byte(MoveDenom(meta)))
	return nil
}

// viewArgsOf turns a view request's arguments into Args (base64 BCS or JSON text).
func viewArgsOf(v viewArgs) (*Args, bool) {
	if v.json {
		return &Args{a: jsonArgs(v.raw)}, true
	}
	out := make(bcsArgs, len(v.raw))
	for i, r := range v.raw {
		b, err := base64.StdEncoding.DecodeString(r)
		if err != nil {
			return nil, false
		}
		out[i] = b
	}
	return &Args{a: out}, true
}
