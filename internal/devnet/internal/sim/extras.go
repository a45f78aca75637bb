package sim

import (
	"fmt"
	"math/big"
	"reflect"

	"google.golang.org/protobuf/proto"
)

// The extras: what an engine offers modules beyond Env. Env is what every chain kind has;
// an extra models something only some chains' modules use (a VM-backed bank, minievm's
// sequence flag), so a module declares the ones it needs (Needer) and the engine checks them
// once, when it wires the module (CheckNeeds): a missing extra is a start-up error, never a
// failed transaction or a silently different event stream.

// QuietBank moves coins without bank events, for VMs whose own events describe the movement
// (Move fungible-asset events, Wasm's interleaved events).
type QuietBank interface {
	SendQuiet(from, to []byte, coins []Coin) error
	MintQuiet(to []byte, coins []Coin) error
	BurnQuiet(from []byte, coins []Coin) error
}

// BalanceAdjuster changes one balance (and the supply) without bank events: the EVM's ERC-20
// backed bank, whose Transfer logs are the events.
type BalanceAdjuster interface {
	AdjustBalance(addr []byte, denom string, delta *big.Int) error
}

// AccountCreator creates the auth account of an address if it has none (contracts the EVM
// deploys get one, as on minievm).
type AccountCreator interface {
	EnsureAccount(addr []byte)
}

// Responder sets the Msg response the transaction result's data carries for the executing
// message.
type Responder interface {
	SetMsgResponse(m proto.Message)
}

// TxIndexer is the executing transaction's position in its block.
type TxIndexer interface {
	TxIndex() uint32
}

// SequenceFlag is minievm's CONTEXT_KEY_SEQUENCE_INCREMENTED for the executing tx: true
// while the ante's sequence increment has not been consumed by an EVM message, nil outside
// a transaction's delivery.
type SequenceFlag interface {
	SequenceIncremented() *bool
}

// FeeDenomer names the chain's fee denom.
type FeeDenomer interface {
	FeeDenom() string
}

// Simulation says whether the executing tx is a simulation (Service/Simulate), whose writes
// and events the engine throws away. It is optional, not a Need: a module that keeps process
// memory beside its KV (Move's record of primary stores) must not record what a simulation
// did, and an engine that never simulates need not offer it.
type Simulation interface {
	Simulating() bool
}

// Simulating reports whether env executes a simulated tx (false for an Env without the extra).
func Simulating(env Env) bool {
	s, ok := env.(Simulation)
	return ok && s.Simulating()
}

// Extra names one extra interface, for Needer and CheckNeeds.
type Extra struct {
	name string
	has  func(Env) bool
}

func (x Extra) String() string { return x.name }

func extra[X any]() Extra {
	return Extra{name: reflect.TypeFor[X]().String(), has: func(e Env) bool { _, ok := e.(X); return ok }}
}

// The extras a module may need.
var (
	NeedQuietBank       = extra[QuietBank]()
	NeedBalanceAdjuster = extra[BalanceAdjuster]()
	NeedAccountCreator  = extra[AccountCreator]()
	NeedResponder       = extra[Responder]()
	NeedTxIndexer       = extra[TxIndexer]()
	NeedSequenceFlag    = extra[SequenceFlag]()
	NeedFeeDenomer      = extra[FeeDenomer]()
)

// Host is an Env with every extra: what the engine's Env, a branch of it and the test fake
// offer.
type Host interface {
	Env
	QuietBank
	BalanceAdjuster
	AccountCreator
	Responder
	TxIndexer
	SequenceFlag
	FeeDenomer
}

// HostExtras are Host's extras, for a module that hands its Env on as a Host (a branch).
var HostExtras = []Extra{NeedQuietBank, NeedBalanceAdjuster, NeedAccountCreator, NeedResponder, NeedTxIndexer, NeedSequenceFlag, NeedFeeDenomer}

// Needer is a Module whose handlers use extras.
type Needer interface {
	Needs() []Extra
}

// CheckNeeds is the wiring-time check an engine runs with a sample of the Env it hands its
// modules: the first module needing an extra env lacks fails it.
func CheckNeeds(env Env, modules ...Module) error {
	for _, m := range modules {
		n, ok := m.(Needer)
		if !ok {
			continue
		}
		for _, x := range n.Needs() {
			if !x.has(env) {
				return fmt.Errorf("module %s needs %s, which %T does not offer", m.Name(), x, env)
			}
		}
	}
	return nil
}

// As returns env as the interface X (an extra, or an Env interface embedding extras). It
// only fails on an engine that skipped CheckNeeds, and then with a failed message, never a
// panic.
func As[X any](env Env) (X, error) {
	x, ok := env.(X)
	if !ok {
		return x, &CodedError{Codespace: "undefined", Code: 1, Log: fmt.Sprintf("%T does not offer %s", env, reflect.TypeFor[X]())}
	}
	return x, nil
}

// Respond sets the Msg response the transaction result's data carries for the executing
// message (NeedResponder).
func Respond(env Env, m proto.Message) error {
	r, err := As[Responder](env)
	if err != nil {
		return err
	}
	r.SetMsgResponse(m)
	return nil
}
