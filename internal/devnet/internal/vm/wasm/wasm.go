// Package wasm simulates the Wasm side of a miniwasm rollup on the devnet: x/wasm code
// storage and contract instantiation (real code ids, checksums and classic contract
// addresses), a CW721 contract with cw721-metadata-onchain 0.19 semantics, a receiver stub
// for `send_nft`, the miniwasm tokenfactory, the REST queries an indexer makes, and a seeded
// traffic generator. No Wasm runs: the behaviour of the two contract kinds is re-implemented
// and chosen from the stored code (bytes mentioning "cw721" behave as CW721, anything else as
// the stub that accepts every message), and every event, error and query answer follows the
// captured chain.
package wasm

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	tokenfactoryv1 "github.com/rollgate/rollgate/internal/chain/protos/miniwasm/tokenfactory/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// StoreName is the module's KV namespace.
const StoreName = "wasm"

// Names wasmd spells as its VM kind, though neither is a kind: EventType is the type of the
// event a contract's execution emits (its attributes after "_contract_address"), Codespace the
// ABCI codespace of the module's errors.
const (
	EventType = "wasm"
	Codespace = "wasm"
)

// Message type URLs handled by the module.
const (
	TypeMsgStoreCode           = "/cosmwasm.wasm.v1.MsgStoreCode"
	TypeMsgInstantiateContract = "/cosmwasm.wasm.v1.MsgInstantiateContract"
	TypeMsgExecuteContract     = "/cosmwasm.wasm.v1.MsgExecuteContract"
	TypeMsgCreateDenom         = "/miniwasm.tokenfactory.v1.MsgCreateDenom"
	TypeMsgMint                = "/miniwasm.tokenfactory.v1.MsgMint"
	TypeMsgBurn                = "/miniwasm.tokenfactory.v1.MsgBurn"
)

// MaxWasmSize is the chain's max_wasm_size parameter (the fixture's value).
const MaxWasmSize = 819200

// DenomCreationGas is the tokenfactory denom_creation_gas_consume parameter.
const DenomCreationGas = 1_000_000

// Module is the simulated Wasm VM and tokenfactory. It implements sim.Module.
type Module struct {
	log *slog.Logger
}

var _ sim.Module = (*Module)(nil)

// Option configures a Module.
type Option func(*Module)

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return func(m *Module) { m.log = l } }

// New returns the Wasm module.
func New(opts ...Option) *Module {
	m := &Module{log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Name implements sim.Module.
func (m *Module) Name() string { return StoreName }

// Needs implements sim.Needer. Contract funds and tokenfactory mints and burns move balances
// quietly while the module renders the bank events itself (wasmd drops the `message` event of
// a funds transfer, tokenfactory interleaves its own events); a contract records its tx's
// position in the block (`created.tx_index`); uploads, instantiations and new denoms answer
// with a Msg response.
func (m *Module) Needs() []sim.Extra {
	return []sim.Extra{sim.NeedQuietBank, sim.NeedTxIndexer, sim.NeedResponder}
}

// InitGenesis implements sim.Module; the module starts empty (no codes, no denoms).
func (m *Module) InitGenesis(sim.Env) error { return nil }

// Handlers implements sim.Module.
func (m *Module) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		TypeMsgStoreCode:           sim.Typed(m.storeCode),
		TypeMsgInstantiateContract: sim.Typed(m.instantiate),
		TypeMsgExecuteContract:     sim.Typed(m.execute),
		TypeMsgCreateDenom:         sim.Typed(m.createDenom),
		TypeMsgMint:                sim.Typed(m.tfMint),
		TypeMsgBurn:                sim.Typed(m.tfBurn),
	}
}

// ---- addresses ----

// ContractAddress is wasmd's classic contract address: address.Module("wasm", codeID ‖
// instanceID) = sha256(sha256("module") ‖ "wasm" ‖ 0x00 ‖ big-endian code id ‖ instance id).
func ContractAddress(codeID, instanceID uint64) []byte {
	var k [16]byte
	binary.BigEndian.PutUint64(k[:8], codeID)
	binary.BigEndian.PutUint64(k[8:], instanceID)
	return address.Module("wasm", k[:])
}

// FactoryDenom is the tokenfactory denom of creator's subdenom.
func FactoryDenom(creator, subdenom string) string { return "factory/" + creator + "/" + subdenom }

// ---- state ----

const (
	kindCW721 = "cw721"
	kindStub  = "stub"
)

type codeRec struct {
	Creator  string `json:"creator"`
	Checksum string `json:"checksum"` // lowercase hex
	Kind     string `json:"kind"`
}

type contractRec struct {
	CodeID  uint64          `json:"code_id"`
	Creator string          `json:"creator"`
	Admin   string          `json:"admin"`
	Label   string          `json:"label"`
	Height  int64           `json:"height"`
	TxIndex uint32          `json:"tx_index"`
	InitMsg json.RawMessage `json:"init_msg"`
	Kind    string          `json:"kind"`
}

type collectionRec struct {
	Name      string          `json:"name"`
	Symbol    string          `json:"symbol"`
	Extension json.RawMessage `json:"extension"`
	UpdatedAt string          `json:"updated_at"`
	Minter    string          `json:"minter"`
	Creator   string          `json:"creator"`
	NumTokens uint64          `json:"num_tokens"`
	Minted    uint64          `json:"minted"`
}

type approval struct {
	Spender string          `json:"spender"`
	Expires json.RawMessage `json:"expires"`
}

type tokenRec struct {
	Owner     string          `json:"owner"`
	TokenURI  *string         `json:"token_uri"`
	Extension json.RawMessage `json:"extension"`
	Approvals []approval      `json:"approvals"`
}

func keyCode(id uint64) string         { return fmt.Sprintf("code/%020d", id) }
func keyContract(addr []byte) string   { return "contract/" + hex.EncodeToString(addr) }
func keyCollection(addr []byte) string { return "cw721/" + hex.EncodeToString(addr) }
func keyToken(addr []byte, id string) string {
	return "token/" + hex.EncodeToString(addr) + "/" + id
}
func keyOperator(addr []byte, owner, op string) string {
	return "operator/" + hex.EncodeToString(addr) + "/" + owner + "/" + op
}
func keyDenom(d string) string { return "denom/" + d }

const (
	keyLastCode     = "seq/code"
	keyLastInstance = "seq/instance"
)

func putJSON(kvs sim.KV, key string, v any) error {
	// Without HTML escaping: raw JSON kept in the records (extensions, init messages) is
	// served as stored, and the contracts' serde encoder does not escape <, > and &.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("wasmvm: encode %s: %w", key, err)
	}
	kvs.Set(key, bytes.TrimRight(buf.Bytes(), "\n"))
	return nil
}

func getJSON(kvs sim.KVReader, key string, v any) bool {
	b, ok := kvs.Get(key)
	return ok && json.Unmarshal(b, v) == nil
}

func nextSeq(kvs sim.KV, key string) uint64 {
	var n uint64
	if b, ok := kvs.Get(key); ok && len(b) == 8 {
		n = binary.BigEndian.Uint64(b)
	}
	n++
	kvs.Set(key, binary.BigEndian.AppendUint64(nil, n))
	return n
}

// ---- events and errors ----

func ev(typ string, kvs ...string) sim.Event {
	e := sim.Event{Type: typ}
	for i := 0; i+1 < len(kvs); i += 2 {
		e.Attributes = append(e.Attributes, sim.Attribute{Key: kvs[i], Value: kvs[i+1], Index: true})
	}
	return e
}

// contractErr is a contract's own error as x/wasm reports it.
func contractErr(msg string) error {
	return &sim.CodedError{Codespace: Codespace, Code: 5, Log: msg + ": execute wasm contract failed"}
}

func wasmErr(code uint32, msg string) error {
	return &sim.CodedError{Codespace: Codespace, Code: code, Log: msg}
}

func insufficient(have *big.Int, want sim.Coin) error {
	return &sim.CodedError{Codespace: "sdk", Code: 5,
		Log: fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds", have, want.Denom, want.Amount, want.Denom)}
}

func coinsString(coins []sim.Coin) string {
	parts := make([]string, 0, len(coins))
	for _, c := range coins {
		parts = append(parts, c.Amount.String()+c.Denom)
	}
	return strings.Join(parts, ",")
}

func toCoins(in []*basev1beta1.Coin) ([]sim.Coin, error) {
	var out []sim.Coin
	for _, c := range in {
		v, ok := new(big.Int).SetString(c.GetAmount(), 10)
		if !ok || v.Sign() < 0 {
			return nil, &sim.CodedError{Codespace: "sdk", Code: 10, Log: fmt.Sprintf("invalid coins: %s%s", c.GetAmount(), c.GetDenom())}
		}
		if v.Sign() > 0 {
			out = append(out, sim.Coin{Denom: c.GetDenom(), Amount: v})
		}
	}
	return out, nil
}

func bech(env interface{ AddressPrefix() string }, b []byte) string {
	s, _ := address.Bech32(env.AddressPrefix(), b)
	return s
}

func parseAcc(prefix, s string) ([]byte, error) {
	b, err := address.FromBech32(prefix, s)
	if err != nil {
		return nil, &sim.CodedError{Codespace: "sdk", Code: 7, Log: fmt.Sprintf("invalid address %q: %v", s, err)}
	}
	return b, nil
}

// transferFunds moves contract funds sender → contract with the bank events wasmd leaves in
// the result (no `message` event).
func transferFunds(env sim.Env, from, to []byte, coins []sim.Coin) error {
	if len(coins) == 0 {
		return nil
	}
	for _, c := range coins {
		if have := env.Balance(from, c.Denom); have.Cmp(c.Amount) < 0 {
			return insufficient(have, c)
		}
	}
	amt := coinsString(coins)
	fb, tb := bech(env, from), bech(env, to)
	q, err := sim.As[sim.QuietBank](env)
	if err != nil {
		return err
	}
	if err := q.SendQuiet(from, to, coins); err != nil {
		return err
	}
	env.Emit(ev("coin_spent", "spender", fb, "amount", amt))
	env.Emit(ev("coin_received", "receiver", tb, "amount", amt))
	env.Emit(ev("transfer", "recipient", tb, "sender", fb, "amount", amt))
	return nil
}

// ---- x/wasm handlers ----

func (m *Module) storeCode(env sim.Env, x *wasmv1.MsgStoreCode) error {
	if _, err := parseAcc(env.AddressPrefix(), x.Sender); err != nil {
		return err
	}
	code, err := uncompress(x.WasmByteCode)
	if err != nil || len(code) == 0 {
		return wasmErr(2, "Error calling the VM: Error during static Wasm validation: Wasm bytecode could not be deserialized: create wasm: invalid wasm code")
	}
	sum := sha256.Sum256(code)
	kvs := env.Store(StoreName)
	id := nextSeq(kvs, keyLastCode)
	kind := kindStub
	if bytes.Contains(code, []byte("cw721")) {
		kind = kindCW721
	}
	if err := putJSON(kvs, keyCode(id), codeRec{Creator: x.Sender, Checksum: hex.EncodeToString(sum[:]), Kind: kind}); err != nil {
		return err
	}
	// Compilation dominates the real cost (about 6.6 gas per byte on the fixture's 700 kB code).
	env.ConsumeGas(uint64(len(code))*66/10 + 10_000)
	env.Emit(ev("store_code", "code_checksum", hex.EncodeToString(sum[:]), "code_id", strconv.FormatUint(id, 10)))
	return sim.Respond(env, &wasmv1.MsgStoreCodeResponse{CodeId: id, Checksum: sum[:]})
}

// uncompress gunzips the upload when it is gzipped (the CLI gzips), bounded by MaxWasmSize.
func uncompress(b []byte) ([]byte, error) {
	if len(b) < 3 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 0x08 {
		if len(b) > MaxWasmSize {
			return nil, errors.New("code too large")
		}
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, 4*MaxWasmSize+1))
	if err != nil {
		return nil, err
	}
	if len(out) > 4*MaxWasmSize {
		return nil, errors.New("code too large")
	}
	return out, nil
}

func (m *Module) instantiate(env sim.Env, x *wasmv1.MsgInstantiateContract) error {
	sender, err := parseAcc(env.AddressPrefix(), x.Sender)
	if err != nil {
		return err
	}
	if x.Admin != "" {
		if _, err := parseAcc(env.AddressPrefix(), x.Admin); err != nil {
			return err
		}
	}
	if x.Label == "" {
		return wasmErr(21, "label is required: invalid")
	}
	if !json.Valid(x.Msg) {
		return wasmErr(21, "payload msg: invalid")
	}
	funds, err := toCoins(x.Funds)
	if err != nil {
		return err
	}
	kvs := env.Store(StoreName)
	var code codeRec
	if !getJSON(kvs, keyCode(x.CodeId), &code) {
		return wasmErr(28, fmt.Sprintf("code id %d: no such code", x.CodeId))
	}
	inst := nextSeq(kvs, keyLastInstance)
	contract := ContractAddress(x.CodeId, inst)
	caddr := bech(env, contract)
	ti, err := sim.As[sim.TxIndexer](env)
	if err != nil {
		return err
	}
	txIndex := ti.TxIndex()
	env.ConsumeGas(60_000)
	if err := transferFunds(env, sender, contract, funds); err != nil {
		return err
	}
	var attrs []string
	switch code.Kind {
	case kindCW721:
		col, err := cw721Instantiate(env, x.Msg, x.Sender)
		if err != nil {
			return err
		}
		if err := putJSON(kvs, keyCollection(contract), col); err != nil {
			return err
		}
		attrs = []string{"minter", col.Minter, "creator", col.Creator}
	default:
		attrs = []string{"action", "instantiate", "contract", "nft_receiver_stub"}
	}
	rec := contractRec{CodeID: x.CodeId, Creator: x.Sender, Admin: x.Admin, Label: x.Label,
		Height: env.Height(), TxIndex: txIndex, InitMsg: compactJSON(x.Msg), Kind: code.Kind}
	if err := putJSON(kvs, keyContract(contract), rec); err != nil {
		return err
	}
	env.Emit(ev("instantiate", "_contract_address", caddr, "code_id", strconv.FormatUint(x.CodeId, 10)))
	env.Emit(ev(EventType, append([]string{"_contract_address", caddr}, attrs...)...))
	return sim.Respond(env, &wasmv1.MsgInstantiateContractResponse{Address: caddr})
}

func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return json.RawMessage("{}")
	}
	return buf.Bytes()
}

func (m *Module) execute(env sim.Env, x *wasmv1.MsgExecuteContract) error {
	sender, err := parseAcc(env.AddressPrefix(), x.Sender)
	if err != nil {
		return err
	}
	contract, err := address.FromBech32(env.AddressPrefix(), x.Contract)
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: fmt.Sprintf("contract: %v", err)}
	}
	funds, err := toCoins(x.Funds)
	if err != nil {
		return err
	}
	if !json.Valid(x.Msg) {
		return wasmErr(21, "payload msg: invalid")
	}
	kvs := env.Store(StoreName)
	var rec contractRec
	if !getJSON(kvs, keyContract(contract), &rec) {
		return wasmErr(22, "no such contract: address "+x.Contract)
	}
	env.ConsumeGas(55_000)
	if err := transferFunds(env, sender, contract, funds); err != nil {
		return err
	}
	if err := m.call(env, contract, rec.Kind, x.Sender, x.Msg); err != nil {
		m.log.Debug("wasm execute failed", "chain", env.ChainID(), "height", env.Height(), "contract", x.Contract, "err", err)
		return err
	}
	return nil
}

// call runs one contract execution (a message or a sub-message) and emits its events.
func (m *Module) call(env sim.Env, contract []byte, kind, sender string, msg []byte) error {
	caddr := bech(env, contract)
	if kind != kindCW721 {
		env.Emit(ev("execute", "_contract_address", caddr))
		env.Emit(ev(EventType, "_contract_address", caddr, "action", "stub_execute", "contract", "nft_receiver_stub"))
		return nil
	}
	c := &cw721{env: env, kv: env.Store(StoreName), addr: contract, caddr: caddr, sender: sender}
	if !getJSON(c.kv, keyCollection(contract), &c.col) {
		return wasmErr(22, "no such contract: address "+caddr)
	}
	attrs, sub, err := c.execute(msg)
	if err != nil {
		return err
	}
	env.Emit(ev("execute", "_contract_address", caddr))
	env.Emit(ev(EventType, append([]string{"_contract_address", caddr}, attrs...)...))
	if sub != nil {
		var rec contractRec
		if !getJSON(c.kv, keyContract(sub.contract), &rec) {
			return contractErr("Generic error: no such contract: address " + bech(env, sub.contract))
		}
		if rec.Kind == kindCW721 {
			return contractErr("Error parsing into type cw721::msg::Cw721ExecuteMsg: unknown variant `receive_nft`")
		}
		return m.call(env, sub.contract, rec.Kind, caddr, sub.msg)
	}
	return nil
}

// ---- tokenfactory ----

type denomRec struct {
	Admin string `json:"admin"`
}

func (m *Module) createDenom(env sim.Env, x *tokenfactoryv1.MsgCreateDenom) error {
	if _, err := parseAcc(env.AddressPrefix(), x.Sender); err != nil {
		return err
	}
	// The x/tokenfactory error registry (codes and texts shared with the Osmosis original).
	switch {
	case len(x.Subdenom) > 44:
		return &sim.CodedError{Codespace: "tokenfactory", Code: 8, Log: "subdenom too long, max length is 44 bytes"}
	case strings.ContainsAny(x.Subdenom, " \t\n"):
		return &sim.CodedError{Codespace: "tokenfactory", Code: 4, Log: fmt.Sprintf("invalid denom: %s", FactoryDenom(x.Sender, x.Subdenom))}
	}
	d := FactoryDenom(x.Sender, x.Subdenom)
	kvs := env.Store(StoreName)
	if _, ok := kvs.Get(keyDenom(d)); ok {
		return &sim.CodedError{Codespace: "tokenfactory", Code: 2, Log: "attempting to create a denom that already exists (has bank metadata)"}
	}
	if err := putJSON(kvs, keyDenom(d), denomRec{Admin: x.Sender}); err != nil {
		return err
	}
	env.ConsumeGas(DenomCreationGas)
	env.Emit(ev("create_denom", "creator", x.Sender, "new_token_denom", d))
	return sim.Respond(env, &tokenfactoryv1.MsgCreateDenomResponse{NewTokenDenom: d})
}

func (m *Module) denomAdmin(env sim.Env, sender string, c *basev1beta1.Coin) (sim.Coin, error) {
	coins, err := toCoins([]*basev1beta1.Coin{c})
	if err != nil || len(coins) != 1 {
		return sim.Coin{}, &sim.CodedError{Codespace: "sdk", Code: 10, Log: "invalid coins"}
	}
	var rec denomRec
	if !getJSON(env.Store(StoreName), keyDenom(coins[0].Denom), &rec) {
		return sim.Coin{}, &sim.CodedError{Codespace: "tokenfactory", Code: 10, Log: fmt.Sprintf("%s: denom does not exist", coins[0].Denom)}
	}
	if rec.Admin != sender {
		return sim.Coin{}, &sim.CodedError{Codespace: "tokenfactory", Code: 3, Log: "unauthorized account"}
	}
	return coins[0], nil
}

func (m *Module) tfMint(env sim.Env, x *tokenfactoryv1.MsgMint) error {
	coin, err := m.denomAdmin(env, x.Sender, x.Amount)
	if err != nil {
		return err
	}
	to := x.MintToAddress
	if to == "" {
		to = x.Sender
	}
	toB, err := parseAcc(env.AddressPrefix(), to)
	if err != nil {
		return err
	}
	mod := bech(env, address.ModuleAccount("tokenfactory"))
	amt := coinsString([]sim.Coin{coin})
	env.ConsumeGas(18_000)
	q, err := sim.As[sim.QuietBank](env)
	if err != nil {
		return err
	}
	if err := q.MintQuiet(toB, []sim.Coin{coin}); err != nil {
		return err
	}
	env.Emit(ev("coin_received", "receiver", mod, "amount", amt))
	env.Emit(ev("coinbase", "minter", mod, "amount", amt))
	env.Emit(ev("coin_spent", "spender", mod, "amount", amt))
	env.Emit(ev("coin_received", "receiver", to, "amount", amt))
	env.Emit(ev("transfer", "recipient", to, "sender", mod, "amount", amt))
	env.Emit(ev("message", "sender", mod))
	env.Emit(ev("tf_mint", "mint_to_address", to, "amount", amt))
	return nil
}

func (m *Module) tfBurn(env sim.Env, x *tokenfactoryv1.MsgBurn) error {
	coin, err := m.denomAdmin(env, x.Sender, x.Amount)
	if err != nil {
		return err
	}
	// miniwasm's MsgBurn has no burn_from_address: the admin burns its own coins.
	from := x.Sender
	fromB, err := parseAcc(env.AddressPrefix(), from)
	if err != nil {
		return err
	}
	if have := env.Balance(fromB, coin.Denom); have.Cmp(coin.Amount) < 0 {
		return insufficient(have, coin)
	}
	mod := bech(env, address.ModuleAccount("tokenfactory"))
	amt := coinsString([]sim.Coin{coin})
	env.ConsumeGas(20_000)
	q, err := sim.As[sim.QuietBank](env)
	if err != nil {
		return err
	}
	if err := q.BurnQuiet(fromB, []sim.Coin{coin}); err != nil {
		return err
	}
	env.Emit(ev("coin_spent", "spender", from, "amount", amt))
	env.Emit(ev("coin_received", "receiver", mod, "amount", amt))
	env.Emit(ev("transfer", "recipient", mod, "sender", from, "amount", amt))
	env.Emit(ev("message", "sender", from))
	env.Emit(ev("coin_spent", "spender", mod, "amount", amt))
	env.Emit(ev("burn", "burner", mod, "amount", amt))
	env.Emit(ev("tf_burn", "burn_from_address", from, "amount", amt))
	return nil
}

// BankFlavor renders plain x/bank events (miniwasm and other SDK chains): coin_spent,
// coin_received, transfer and message{sender} for a send; coin_received and coinbase for a
// mint; coin_spent and burn for a burn.
type BankFlavor struct{}

var _ sim.BankFlavor = BankFlavor{}

// SendEvents implements sim.BankFlavor.
func (BankFlavor) SendEvents(prefix string, from, to []byte, coins []sim.Coin) []sim.Event {
	fb, _ := address.Bech32(prefix, from)
	tb, _ := address.Bech32(prefix, to)
	amt := coinsString(coins)
	return []sim.Event{
		ev("coin_spent", "spender", fb, "amount", amt),
		ev("coin_received", "receiver", tb, "amount", amt),
		ev("transfer", "recipient", tb, "sender", fb, "amount", amt),
		ev("message", "sender", fb),
	}
}

// MintEvents implements sim.BankFlavor.
func (BankFlavor) MintEvents(prefix string, to []byte, coins []sim.Coin) []sim.Event {
	tb, _ := address.Bech32(prefix, to)
	amt := coinsString(coins)
	return []sim.Event{ev("coin_received", "receiver", tb, "amount", amt), ev("coinbase", "minter", tb, "amount", amt)}
}

// BurnEvents implements sim.BankFlavor.
func (BankFlavor) BurnEvents(prefix string, from []byte, coins []sim.Coin) []sim.Event {
	fb, _ := address.Bech32(prefix, from)
	amt := coinsString(coins)
	return []sim.Event{ev("coin_spent", "spender", fb, "amount", amt), ev("burn", "burner", fb, "amount", amt)}
}

// MetadataDenoms lists the tokenfactory denoms: creating one sets its default x/bank
// metadata, which the chain's bank routes serve (server.MetadataSource).
func (m *Module) MetadataDenoms(q sim.Query) []string {
	var out []string
	q.Store(StoreName).Iterate("denom/", func(k string, _ []byte) bool {
		out = append(out, strings.TrimPrefix(k, "denom/"))
		return true
	})
	return out
}
