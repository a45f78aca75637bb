// Package evm is the devnet's EVM rollup module: a minimal simulation of minievm (not a real
// EVM) with ERC-20s backing the bank denoms, an ERC-20 factory, ERC-721 collections, MsgCall
// and MsgCreate, Ethereum transactions wrapped as minievm wraps them (sign mode 9999), the
// `call`/`create`/`evm` events and log JSON of the real chain, eth_call answers, an
// Ethereum JSON-RPC server (blocks, receipts, callTracer traces) and a seeded traffic generator.
package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// StoreName is the module's KV namespace.
const StoreName = "evm"

// Names minievm spells as its VM kind, though neither is a kind: EventType is the type of
// the event it emits per EVM log (the log in its "log" attribute), Codespace the ABCI
// codespace of its errors.
const (
	EventType = "evm"
	Codespace = "evm"
)

// Config configures the EVM module.
type Config struct {
	EVMChainID     uint64   // default: derived from the chain id
	FeeDenom       string   // default "GAS"
	GenesisDenoms  []string // extra bank denoms with genesis ERC-20s (decimals 6), e.g. "uusdc"
	MaxTxsPerBlock int      // traffic intents per block, default 4
}

// Module is the EVM module. It holds no mutable state outside the chain's KV.
type Module struct {
	cfg     Config
	factory common.Address
	// cosmos runs a Cosmos message a contract sends (minievm's COSMOS_CONTRACT.execute_cosmos);
	// nil: such calls revert.
	cosmos func(env sim.Env, m proto.Message) error
}

// SetCosmosExecutor sets how contracts run Cosmos messages (the chain's message router; the
// network sets it once its modules exist, before the first block).
func (m *Module) SetCosmosExecutor(fn func(env sim.Env, msg proto.Message) error) { m.cosmos = fn }

// New returns an EVM module.
func New(cfg Config) *Module {
	if cfg.FeeDenom == "" {
		cfg.FeeDenom = "GAS"
	}
	if cfg.MaxTxsPerBlock <= 0 {
		cfg.MaxTxsPerBlock = 4
	}
	return &Module{cfg: cfg, factory: derivedAddress("erc20-factory")}
}

// ChainIDFor derives a JSON-safe EVM chain id from a Cosmos chain id.
func ChainIDFor(chainID string) uint64 {
	h := crypto.Keccak256([]byte(chainID))
	return new(big.Int).SetBytes(h[:6]).Uint64()
}

// EVMChainID is the module's EVM chain id for a Cosmos chain id.
func (m *Module) EVMChainID(chainID string) uint64 {
	if m.cfg.EVMChainID != 0 {
		return m.cfg.EVMChainID
	}
	return ChainIDFor(chainID)
}

// Factory is the ERC-20 factory's address.
func (m *Module) Factory() common.Address { return m.factory }

func derivedAddress(label string) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte("rollgate/devnet/evm/" + label))[12:])
}

// DenomContract is the ERC-20 backing a bank denom: evm/<hex> denoms name their contract,
// any other denom has a contract address derived from its name.
func DenomContract(denom string) common.Address {
	if strings.HasPrefix(denom, "evm/") && common.IsHexAddress(denom[4:]) {
		return common.HexToAddress(denom[4:])
	}
	return derivedAddress("erc20/" + denom)
}

// ERC20Of is the ERC-20 address of a bank denom in the chain's state: a contract registered
// for it, else DenomContract (the contract the chain makes for a bank coin on first use).
func ERC20Of(q sim.Query, denom string) common.Address {
	if b, ok := q.Store(StoreName).Get("d/" + denom); ok {
		return common.HexToAddress(string(b))
	}
	return DenomContract(denom)
}

// Name implements sim.Module.
func (m *Module) Name() string { return StoreName }

type contract struct {
	Kind     string `json:"kind"` // erc20 | erc721 | factory | code
	Name     string `json:"name,omitempty"`
	Symbol   string `json:"symbol,omitempty"`
	Decimals uint8  `json:"decimals,omitempty"`
	Denom    string `json:"denom,omitempty"`
	Owner    string `json:"owner,omitempty"`
	Minted   uint64 `json:"minted,omitempty"` // ERC-721 tokens ever minted
}

type token struct {
	Owner    string `json:"owner"`
	URI      string `json:"uri"`
	Approved string `json:"approved,omitempty"`
}

func key(a common.Address) string { return strings.ToLower(a.Hex()[2:]) }

func getContract(kv sim.KVReader, a common.Address) (contract, bool) {
	b, ok := kv.Get("c/" + key(a))
	if !ok {
		return contract{}, false
	}
	var c contract
	if json.Unmarshal(b, &c) != nil {
		return contract{}, false
	}
	return c, true
}

func putContract(kv sim.KV, a common.Address, c contract) {
	b, _ := json.Marshal(c)
	kv.Set("c/"+key(a), b)
}

func tokenKey(c common.Address, id *big.Int) string {
	return "t/" + key(c) + "/" + fmt.Sprintf("%064x", id)
}

func getToken(kv sim.KVReader, c common.Address, id *big.Int) (token, bool) {
	b, ok := kv.Get(tokenKey(c, id))
	if !ok {
		return token{}, false
	}
	var t token
	if json.Unmarshal(b, &t) != nil {
		return token{}, false
	}
	return t, true
}

func nftCount(kv sim.KVReader, c, owner common.Address) *big.Int {
	b, ok := kv.Get("nb/" + key(c) + "/" + key(owner))
	if !ok {
		return new(big.Int)
	}
	v, _ := new(big.Int).SetString(string(b), 10)
	if v == nil {
		return new(big.Int)
	}
	return v
}

func addNFTCount(kv sim.KV, c, owner common.Address, d int64) {
	n := new(big.Int).Add(nftCount(kv, c, owner), big.NewInt(d))
	if n.Sign() <= 0 {
		kv.Delete("nb/" + key(c) + "/" + key(owner))
		return
	}
	kv.Set("nb/"+key(c)+"/"+key(owner), []byte(n.String()))
}

// InitGenesis registers the factory, the ERC20Wrapper and the ERC-20s of the fee denom and
// genesis denoms.
func (m *Module) InitGenesis(env sim.Env) error {
	kv := env.Store(StoreName)
	putContract(kv, m.factory, contract{Kind: "factory", Name: "ERC20Factory"})
	putContract(kv, WrapperAddress, contract{Kind: "wrapper", Name: "ERC20Wrapper"})
	denoms := append([]string{m.cfg.FeeDenom}, m.cfg.GenesisDenoms...)
	for i, d := range denoms {
		// minievm gives the fee denom 18 decimals and other bank denoms 0
		dec := uint8(0)
		if i == 0 {
			dec = 18
		}
		a := DenomContract(d)
		putContract(kv, a, contract{Kind: "erc20", Name: d, Symbol: d, Decimals: dec, Denom: d})
		kv.Set("d/"+d, []byte(a.Hex()))
	}
	return nil
}

// Handlers implements sim.Module.
func (m *Module) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		"/minievm.evm.v1.MsgCall":   sim.Typed(m.handleCall),
		"/minievm.evm.v1.MsgCreate": sim.Typed(m.handleCreate),
	}
}

// Needs implements sim.Needer: the ERC-20 backed bank moves balances without bank events (the
// Transfer logs are the events), contracts get auth accounts, calls and creations answer with
// a Msg response, and MsgCall follows minievm's sequence flag.
func (m *Module) Needs() []sim.Extra { return hostNeeds }

var hostNeeds = []sim.Extra{sim.NeedBalanceAdjuster, sim.NeedAccountCreator, sim.NeedResponder, sim.NeedSequenceFlag}

// hostEnv is the Env with the extras of hostNeeds.
type hostEnv interface {
	sim.Env
	sim.BalanceAdjuster
	sim.AccountCreator
	sim.Responder
	sim.SequenceFlag
}

var errReverted = &sim.CodedError{Codespace: Codespace, Code: 23, Log: "Reverted"}

// ethLog is one EVM log.
type ethLog struct {
	Address common.Address
	Topics  []common.Hash
	Data    []byte
}

// logJSON is the `log` attribute of an `evm` event, exactly as minievm prints it.
func (l ethLog) logJSON() string {
	topics := make([]string, 0, len(l.Topics))
	for _, t := range l.Topics {
		topics = append(topics, t.Hex())
	}
	b, _ := json.Marshal(struct {
		Address string   `json:"address"`
		Topics  []string `json:"topics"`
		Data    string   `json:"data"`
	}{l.Address.Hex(), topics, hexutilEncode(l.Data)})
	return string(b)
}

func hexutilEncode(b []byte) string { return "0x" + hex.EncodeToString(b) }

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

func evmEvent(logs []ethLog) sim.Event {
	ev := sim.Event{Type: EventType}
	for _, l := range logs {
		ev.Attributes = append(ev.Attributes, attr("log", l.logJSON()))
	}
	return ev
}

// exec is one call's effects.
type exec struct {
	env   hostEnv
	kv    sim.KV
	m     *Module
	logs  []ethLog
	ret   []byte
	creat []common.Address
}

func parseAddr(prefix, s string) (common.Address, error) {
	b, err := engine.ParseAddress(prefix, s)
	if err != nil {
		return common.Address{}, err
	}
	if len(b) != 20 {
		return common.Address{}, fmt.Errorf("address must be 20 bytes")
	}
	return common.BytesToAddress(b), nil
}

func parseValue(s string) (*big.Int, error) {
	if s == "" {
		return new(big.Int), nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("invalid value %q", s)
	}
	return v, nil
}

func (m *Module) newExec(env sim.Env) (*exec, error) {
	h, err := sim.As[hostEnv](env)
	if err != nil {
		return nil, err
	}
	return &exec{env: h, kv: env.Store(StoreName), m: m}, nil
}

func (m *Module) handleCall(env sim.Env, mc *evmv1.MsgCall) error {
	sender, err := parseAddr(env.AddressPrefix(), mc.GetSender())
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: err.Error() + ": invalid address"}
	}
	if err := consumeSequenceFlag(env, sender, true); err != nil {
		return err
	}
	to, err := parseAddr(env.AddressPrefix(), mc.GetContractAddr())
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: err.Error() + ": invalid address"}
	}
	input, err := hex.DecodeString(strings.TrimPrefix(mc.GetInput(), "0x"))
	if err != nil {
		return &sim.CodedError{Codespace: Codespace, Code: 2, Log: "invalid input: " + err.Error()}
	}
	value, err := parseValue(mc.GetValue())
	if err != nil {
		return &sim.CodedError{Codespace: Codespace, Code: 2, Log: err.Error()}
	}
	x, err := m.newExec(env)
	if err != nil {
		return err
	}
	if err := x.call(sender, to, input, value); err != nil {
		return err
	}
	for _, c := range x.creat {
		env.Emit(sim.Event{Type: "contract_created", Attributes: []sim.Attribute{attr("contract", c.Hex())}})
	}
	env.Emit(sim.Event{Type: "call", Attributes: []sim.Attribute{attr("contract", to.Hex()), attr("ret", hexutilEncode(x.ret))}})
	env.Emit(evmEvent(x.logs))
	x.env.SetMsgResponse(&evmv1.MsgCallResponse{Result: hexutilEncode(x.ret), Logs: pbLogs(x.logs)})
	return nil
}

// pbLogs is the logs of a MsgCallResponse / MsgCreateResponse.
func pbLogs(logs []ethLog) []*evmv1.Log {
	out := make([]*evmv1.Log, 0, len(logs))
	for _, lg := range logs {
		l := &evmv1.Log{Address: lg.Address.Hex(), Data: hexutilEncode(lg.Data)}
		for _, t := range lg.Topics {
			l.Topics = append(l.Topics, t.Hex())
		}
		out = append(out, l)
	}
	return out
}

func (m *Module) handleCreate(env sim.Env, mc *evmv1.MsgCreate) error {
	sender, err := parseAddr(env.AddressPrefix(), mc.GetSender())
	if err != nil {
		return &sim.CodedError{Codespace: "sdk", Code: 7, Log: err.Error() + ": invalid address"}
	}
	if err := consumeSequenceFlag(env, sender, false); err != nil {
		return err
	}
	code, err := hex.DecodeString(strings.TrimPrefix(mc.GetCode(), "0x"))
	if err != nil || len(code) == 0 {
		return &sim.CodedError{Codespace: Codespace, Code: 2, Log: "invalid code"}
	}
	x, err := m.newExec(env)
	if err != nil {
		return err
	}
	addr, err := x.create(sender, code)
	if err != nil {
		return err
	}
	env.Emit(sim.Event{Type: "contract_created", Attributes: []sim.Attribute{attr("contract", addr.Hex())}})
	env.Emit(sim.Event{Type: "create", Attributes: []sim.Attribute{attr("contract", addr.Hex()), attr("ret", hexutilEncode(code))}})
	env.Emit(evmEvent(x.logs))
	x.env.SetMsgResponse(&evmv1.MsgCreateResponse{Result: hexutilEncode(code), ContractAddr: addr.Hex(), Logs: pbLogs(x.logs)})
	return nil
}

func (x *exec) nextAddress(creator common.Address) common.Address {
	k := "nonce/" + key(creator)
	var n uint64
	if b, ok := x.kv.Get(k); ok {
		_, _ = fmt.Sscan(string(b), &n) // written just below as a decimal: it always parses
	}
	x.kv.Set(k, []byte(fmt.Sprint(n+1)))
	return crypto.CreateAddress(creator, n)
}

func (x *exec) create(sender common.Address, code []byte) (common.Address, error) {
	x.env.ConsumeGas(400000)
	addr := x.nextAddress(sender)
	c := contract{Kind: "code", Owner: key(sender)}
	if i := bytes.Index(code, markerERC721); i >= 0 {
		args, err := contractABI.Methods["erc721Args"].Inputs.Unpack(code[i+len(markerERC721):])
		if err != nil {
			return addr, errReverted
		}
		c = contract{Kind: "erc721", Name: args[0].(string), Symbol: args[1].(string), Owner: key(sender)}
	} else if i := bytes.Index(code, markerERC20); i >= 0 {
		args, err := contractABI.Methods["erc20Args"].Inputs.Unpack(code[i+len(markerERC20):])
		if err != nil {
			return addr, errReverted
		}
		c = contract{Kind: "erc20", Name: args[0].(string), Symbol: args[1].(string), Decimals: args[2].(uint8), Owner: key(sender)}
		c.Denom = "evm/" + addr.Hex()[2:]
		x.kv.Set("d/"+c.Denom, []byte(addr.Hex()))
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicOwnership, {}, addrTopic(sender)}})
	}
	putContract(x.kv, addr, c)
	x.env.EnsureAccount(addr.Bytes())
	return addr, nil
}

func (x *exec) transferValue(from, to common.Address, v *big.Int) error {
	if v.Sign() == 0 {
		return nil
	}
	denom := x.m.cfg.FeeDenom
	if err := x.env.AdjustBalance(from.Bytes(), denom, new(big.Int).Neg(v)); err != nil {
		return errReverted
	}
	if err := x.env.AdjustBalance(to.Bytes(), denom, v); err != nil {
		return err
	}
	x.logs = append(x.logs, ethLog{Address: DenomContract(denom), Topics: []common.Hash{topicTransfer, addrTopic(from), addrTopic(to)}, Data: word(v).Bytes()})
	return nil
}

// call executes calldata against a contract (or a plain value transfer to an account).
func (x *exec) call(sender, to common.Address, input []byte, value *big.Int) error {
	x.env.ConsumeGas(60000)
	if err := x.transferValue(sender, to, value); err != nil {
		return err
	}
	c, ok := getContract(x.kv, to)
	if !ok && len(input) > 0 {
		// A bank coin's ERC-20 exists from its first mint on (bank-as-ERC20).
		if c, ok = bankERC20(stateAdapter{x}, to); ok {
			registerContract(x.kv, to, c)
		}
	}
	if !ok {
		if len(input) == 0 {
			return nil // value transfer to an account
		}
		return errReverted
	}
	if c.Kind == "code" && len(input) == 0 {
		return nil
	}
	name, args, err := methodBySelector(input)
	if err != nil {
		return errReverted
	}
	if ret, ok := x.view(to, c, name, args); ok {
		x.ret = ret
		return nil
	}
	switch c.Kind {
	case "factory":
		if name != "createERC20" {
			return errReverted
		}
		return x.createERC20(sender, args[0].(string), args[1].(string), args[2].(uint8))
	case "erc20":
		return x.erc20(sender, to, c, name, args)
	case "erc721":
		return x.erc721(sender, to, c, name, args)
	case "wrapper":
		return x.wrapper(sender, name, args)
	}
	return errReverted
}

func (x *exec) createERC20(sender common.Address, name, symbol string, dec uint8) error {
	x.env.ConsumeGas(300000)
	addr := x.nextAddress(x.m.factory)
	c := contract{Kind: "erc20", Name: name, Symbol: symbol, Decimals: dec, Owner: key(sender), Denom: "evm/" + addr.Hex()[2:]}
	putContract(x.kv, addr, c)
	x.kv.Set("d/"+c.Denom, []byte(addr.Hex()))
	x.env.EnsureAccount(addr.Bytes())
	x.creat = append(x.creat, addr)
	x.logs = append(x.logs,
		ethLog{Address: addr, Topics: []common.Hash{topicOwnership, addrTopic(x.m.factory), addrTopic(sender)}},
		ethLog{Address: x.m.factory, Topics: []common.Hash{topicERC20Created, addrTopic(addr), addrTopic(sender)}})
	x.ret = packOut("createERC20", addr)
	return nil
}

func allowanceKey(c, owner, spender common.Address) string {
	return "al/" + key(c) + "/" + key(owner) + "/" + key(spender)
}

func getAllowance(kv sim.KVReader, c, owner, spender common.Address) *big.Int {
	b, ok := kv.Get(allowanceKey(c, owner, spender))
	if !ok {
		return new(big.Int)
	}
	v, _ := new(big.Int).SetString(string(b), 10)
	if v == nil {
		return new(big.Int)
	}
	return v
}

var trueWord = word(big.NewInt(1)).Bytes()

func (x *exec) erc20(sender, addr common.Address, c contract, name string, args []any) error {
	x.env.ConsumeGas(30000)
	move := func(from, to common.Address, v *big.Int) error {
		if from != (common.Address{}) {
			if err := x.env.AdjustBalance(from.Bytes(), c.Denom, new(big.Int).Neg(v)); err != nil {
				return errReverted
			}
		}
		if to != (common.Address{}) {
			if err := x.env.AdjustBalance(to.Bytes(), c.Denom, v); err != nil {
				return errReverted
			}
		}
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicTransfer, addrTopic(from), addrTopic(to)}, Data: word(v).Bytes()})
		return nil
	}
	switch name {
	case "transfer":
		if err := move(sender, args[0].(common.Address), args[1].(*big.Int)); err != nil {
			return err
		}
		x.ret = trueWord
	case "transferFrom":
		from, to, v := args[0].(common.Address), args[1].(common.Address), args[2].(*big.Int)
		if from != sender {
			al := getAllowance(x.kv, addr, from, sender)
			if al.Cmp(v) < 0 {
				return errReverted
			}
			x.kv.Set(allowanceKey(addr, from, sender), []byte(new(big.Int).Sub(al, v).String()))
		}
		if err := move(from, to, v); err != nil {
			return err
		}
		x.ret = trueWord
	case "approve":
		sp, v := args[0].(common.Address), args[1].(*big.Int)
		x.kv.Set(allowanceKey(addr, sender, sp), []byte(v.String()))
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicApproval, addrTopic(sender), addrTopic(sp)}, Data: word(v).Bytes()})
		x.ret = trueWord
	case "mint":
		if c.Owner != key(sender) {
			return errReverted
		}
		return move(common.Address{}, args[0].(common.Address), args[1].(*big.Int))
	case "burn":
		return move(sender, common.Address{}, args[0].(*big.Int))
	default:
		return errReverted
	}
	return nil
}

func (x *exec) erc721(sender, addr common.Address, c contract, name string, args []any) error {
	x.env.ConsumeGas(40000)
	nftLog := func(from, to common.Address, id *big.Int) {
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicTransfer, addrTopic(from), addrTopic(to), word(id)}})
	}
	switch name {
	case "mintNFT":
		to, id, uri := args[0].(common.Address), args[1].(*big.Int), args[2].(string)
		if c.Owner != key(sender) {
			return errReverted
		}
		if _, exists := getToken(x.kv, addr, id); exists {
			return errReverted
		}
		b, _ := json.Marshal(token{Owner: key(to), URI: uri})
		x.kv.Set(tokenKey(addr, id), b)
		addNFTCount(x.kv, addr, to, 1)
		c.Minted++
		putContract(x.kv, addr, c)
		nftLog(common.Address{}, to, id)
	case "transferFrom", "safeTransferFrom":
		from, to, id := args[0].(common.Address), args[1].(common.Address), args[2].(*big.Int)
		t, ok := getToken(x.kv, addr, id)
		if !ok || t.Owner != key(from) || (key(sender) != t.Owner && key(sender) != t.Approved) || to == (common.Address{}) {
			return errReverted
		}
		t.Owner, t.Approved = key(to), ""
		b, _ := json.Marshal(t)
		x.kv.Set(tokenKey(addr, id), b)
		addNFTCount(x.kv, addr, from, -1)
		addNFTCount(x.kv, addr, to, 1)
		nftLog(from, to, id)
	case "approve":
		sp, id := args[0].(common.Address), args[1].(*big.Int)
		t, ok := getToken(x.kv, addr, id)
		if !ok || t.Owner != key(sender) {
			return errReverted
		}
		t.Approved = key(sp)
		b, _ := json.Marshal(t)
		x.kv.Set(tokenKey(addr, id), b)
		x.logs = append(x.logs, ethLog{Address: addr, Topics: []common.Hash{topicApproval, addrTopic(sender), addrTopic(sp), word(id)}})
	case "burn":
		id := args[0].(*big.Int)
		t, ok := getToken(x.kv, addr, id)
		if !ok || t.Owner != key(sender) {
			return errReverted
		}
		x.kv.Delete(tokenKey(addr, id))
		addNFTCount(x.kv, addr, sender, -1)
		nftLog(sender, common.Address{}, id)
	default:
		return errReverted
	}
	return nil
}

// stateReader is what view functions need: the module KV and bank balances/supply.
type stateReader interface {
	Store(module string) sim.KVReader
	Balance(addr []byte, denom string) *big.Int
}

// view answers the read-only functions; ok=false for state-changing ones.
func (x *exec) view(addr common.Address, c contract, name string, args []any) ([]byte, bool) {
	return viewCall(stateAdapter{x}, addr, c, name, args)
}

type stateAdapter struct{ x *exec }

func (s stateAdapter) Store(module string) sim.KVReader { return s.x.env.Store(module) }
func (s stateAdapter) Balance(addr []byte, denom string) *big.Int {
	return s.x.env.Balance(addr, denom)
}

func supplyOf(st stateReader, denom string) *big.Int {
	b, ok := st.Store("bank").Get("s/" + denom)
	if !ok {
		return new(big.Int)
	}
	v, _ := new(big.Int).SetString(string(b), 10)
	if v == nil {
		return new(big.Int)
	}
	return v
}

func viewCall(st stateReader, addr common.Address, c contract, name string, args []any) ([]byte, bool) {
	kv := st.Store(StoreName)
	switch name {
	case "name":
		return packOut(name, c.Name), true
	case "symbol":
		return packOut(name, c.Symbol), true
	case "owner":
		return packOut(name, common.HexToAddress(c.Owner)), true
	}
	switch c.Kind {
	case "erc20":
		switch name {
		case "decimals":
			return packOut(name, c.Decimals), true
		case "totalSupply":
			return packOut(name, supplyOf(st, c.Denom)), true
		case "balanceOf":
			return packOut(name, st.Balance(args[0].(common.Address).Bytes(), c.Denom)), true
		case "allowance":
			return packOut(name, getAllowance(kv, addr, args[0].(common.Address), args[1].(common.Address))), true
		}
	case "erc721":
		switch name {
		case "balanceOf":
			return packOut(name, nftCount(kv, addr, args[0].(common.Address))), true
		case "ownerOf", "tokenURI", "getApproved":
			t, ok := getToken(kv, addr, args[0].(*big.Int))
			if !ok {
				return nil, true // reverts: nil ret with ok signals "reverted" to callers
			}
			switch name {
			case "ownerOf":
				return packOut(name, common.HexToAddress(t.Owner)), true
			case "getApproved":
				return packOut(name, common.HexToAddress(t.Approved)), true
			}
			return packOut(name, t.URI), true
		}
	}
	return nil, false
}

// ErrExecutionReverted is returned by Call when the simulated contract reverts; its text is
// what minievm answers ("Reverted").
var ErrExecutionReverted = fmt.Errorf("Reverted")

// Call answers a read-only call (eth_call, /minievm/evm/v1/call) at the state of q.
func (m *Module) Call(q sim.Query, to common.Address, input []byte) ([]byte, error) {
	c, ok := bankERC20(q, to)
	if !ok {
		return nil, nil // calling an account returns empty data, as on Ethereum
	}
	if len(input) == 0 {
		return nil, nil
	}
	name, args, err := methodBySelector(input)
	if err != nil {
		return nil, ErrExecutionReverted
	}
	ret, ok := viewCall(q, to, c, name, args)
	if !ok || ret == nil {
		return nil, ErrExecutionReverted
	}
	return ret, nil
}

var _ sim.Module = (*Module)(nil)
