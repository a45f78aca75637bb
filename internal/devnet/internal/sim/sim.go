// Package sim is the contract between the devnet engine and the modules that run on it
// (bank, EVM, Move, Wasm, IBC, OPinit). A module sees one Env per executing transaction and
// reports everything it does as ABCI events, so the events are exactly what a real chain's
// `/block_results` would carry. What only some modules use of an engine beyond Env (a quiet
// bank, Msg responses, minievm's sequence flag, ...) is an extra (extras.go): a module
// declares the extras it needs and the engine checks them when it wires the module.
package sim

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"time"

	"google.golang.org/protobuf/proto"
)

// Attribute is one ABCI event attribute. CometBFT 0.38 serves key and value as plain strings.
type Attribute struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Index bool   `json:"index"`
}

// Event is one ABCI event.
type Event struct {
	Type       string      `json:"type"`
	Attributes []Attribute `json:"attributes,omitempty"`
}

// Coin is an amount of one denom.
type Coin struct {
	Denom  string
	Amount *big.Int
}

// KVReader reads a module's state as of one height.
type KVReader interface {
	Get(key string) ([]byte, bool)
	// Iterate visits keys with the prefix in ascending order until fn returns false.
	Iterate(prefix string, fn func(key string, value []byte) bool)
}

// KV is a versioned key-value store namespaced to one module: writes land at the block being
// built, reads see the latest value, and the engine can open a read-only view at any earlier
// height (REST queries carrying x-cosmos-block-height).
type KV interface {
	KVReader
	Set(key string, value []byte)
	Delete(key string)
}

// Env is what a message handler may do while a transaction executes. Failed messages roll
// back every write and event of the transaction (the engine takes care of it).
type Env interface {
	ChainID() string
	Height() int64
	Time() time.Time
	TxHash() []byte // SHA-256 of the tx bytes
	AddressPrefix() string
	// Emit appends an event to the transaction's result.
	Emit(ev Event)
	// Balance, Send, Mint and Burn move coins and emit the bank module's events exactly as
	// the chain kind does (coin_spent, coin_received, transfer, coinbase, burn, and on EVM
	// chains the ERC-20 backed log events).
	Balance(addr []byte, denom string) *big.Int
	Send(from, to []byte, coins []Coin) error
	Mint(to []byte, coins []Coin) error
	Burn(from []byte, coins []Coin) error
	// Store returns the module's versioned KV.
	Store(module string) KV
	// ConsumeGas adds to the transaction's gas used.
	ConsumeGas(amount uint64)
}

// Handler executes one message of a transaction.
type Handler func(env Env, msg proto.Message) error

// CodedError is a failure with an ABCI codespace and code (e.g. "sdk", 5 for insufficient funds).
type CodedError struct {
	Codespace string
	Code      uint32
	Log       string
}

func (e *CodedError) Error() string { return e.Log }

// Account is a funded account whose key the devnet holds, so traffic can be signed.
type Account struct {
	Addr   []byte // 20 bytes
	Bech32 string
}

// Intent is one transaction a traffic generator wants sent: the engine signs it with the
// account's key, with the account's next sequence, and submits it to the mempool like any
// broadcast transaction.
type Intent struct {
	Signer   int // index into the accounts given to Traffic
	Msgs     []proto.Message
	Memo     string
	GasLimit uint64 // 0 means the engine's default
}

// Query is read access to a chain's state as of one height, for REST and JSON-RPC queries.
type Query interface {
	ChainID() string
	Height() int64
	AddressPrefix() string
	Store(module string) KVReader
	Balance(addr []byte, denom string) *big.Int
}

// QueryAt resolves the state a request asks for: the x-cosmos-block-height header (or the
// latest height without it). It fails for heights the chain has not reached.
type QueryAt func(r *http.Request) (Query, error)

// Module is a VM or feature running on a devnet chain (Move VM, Wasm VM, EVM, IBC, OPinit).
type Module interface {
	Name() string
	// InitGenesis writes the module's genesis state (env.Height() is 1 during genesis).
	InitGenesis(env Env) error
	// Handlers maps message type URLs (e.g. "/initia.move.v1.MsgExecute") to handlers.
	Handlers() map[string]Handler
	// Routes registers the module's REST query routes with Go 1.22 patterns, e.g.
	// "GET /initia/move/v1/accounts/{address}/resources/by_struct_tag".
	Routes(mux *http.ServeMux, at QueryAt)
	// Traffic proposes the transactions of the next block. It must be a pure function of rng
	// and the state it reads, so the same seed gives the same chain.
	Traffic(rng *rand.Rand, state Query, accounts []Account) []Intent
}

// Forgetter is implemented by a module whose settled records a pruning chain may drop
// (engine Config.RetainBlocks > 0): records that nothing the chain produces reads again once
// their blocks have left the retained window, such as an IBC receipt of a packet the relayer
// has delivered. A long-running devnet's state then levels off where a real node's keeps
// growing on disk.
type Forgetter interface {
	// Forgettable reports whether a record of the module's store (key within it, its newest
	// value, written at or below the chain's new base) may be dropped; baseTime is the base
	// block's time.
	Forgettable(baseTime time.Time, store, key string, value []byte) bool
}

// BankFlavor renders bank movements the way one chain kind does. On minievm and minimove the
// bank is backed by the VM (ERC-20 contracts, Move fungible assets), so a plain send also
// carries VM events (EVM `Transfer` logs, Move `DepositEvent`/`WithdrawEvent`) around the
// standard coin_spent/coin_received/transfer events; miniwasm and other SDK chains emit only
// the x/bank events. The engine applies the balance change and appends these events.
type BankFlavor interface {
	SendEvents(prefix string, from, to []byte, coins []Coin) []Event
	MintEvents(prefix string, to []byte, coins []Coin) []Event
	BurnEvents(prefix string, from []byte, coins []Coin) []Event
}

// BankForker is a BankFlavor that keeps process memory across txs (Move's record of which
// primary stores exist). A simulated tx (Service/Simulate) renders its events with a fork,
// so it leaves no trace in what later txs emit.
type BankForker interface {
	ForkFlavor() BankFlavor
}

// Typed adapts a handler of one concrete message type, so modules write
// `"/pkg.MsgX": sim.Typed(m.handleX)`. A message of another type (the engine routed a type
// URL to the wrong handler) fails like the SDK's router does for a message it cannot handle.
func Typed[M proto.Message](h func(env Env, msg M) error) Handler {
	return func(env Env, msg proto.Message) error {
		m, ok := msg.(M)
		if !ok {
			return &CodedError{Codespace: "sdk", Code: 6, Log: fmt.Sprintf("unrecognized message type: %T", msg)}
		}
		return h(env, m)
	}
}
