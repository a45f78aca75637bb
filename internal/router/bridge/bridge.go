// Package bridge is the router's bridge seam: one file per way a coin crosses from one
// (chain, denom) to another — bank.go (a same-chain send), ibc.go (ICS-20 transfers,
// packet-forward and ibc-hooks memos), opinit.go (OPinit deposits and withdrawals),
// layerzero.go (LayerZero OFT sends) — and one table, All, listing them.
//
// Each bridge
//   - declares its edges from the registry (Edges: what the route graph may cross),
//   - renders its Skip wire operation (Render: the only place a variant of Operation is
//     filled),
//   - checks an operation sent back against the registry and builds its message (Check,
//     Build: a proto message for Cosmos chains, an EVM call for EVM chains),
//   - and says what the tracker watches for its hop (Watch: the chain events, their keys, and
//     which one starts a leg).
//
// Everything else reads a normalized Hop (Operation.Hop) instead of switching over the
// union's variants. The rules that combine bridges in one transaction (minievm's wrapper
// token, ibc-hooks memos on arrival, the OPinit deposit's op hook) are not here: they are
// router/msgs' compose.go. Adding a bridge is a file here and its row in All (plus, when Skip
// names a wire variant for it, that variant's field on Operation).
package bridge

import (
	"fmt"

	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/textclip"
)

// Bridge types as the Skip API names them (route requests' `bridges`, fees' bridge_id).
const (
	NameIBC       = "IBC"
	NameOPInit    = "OPINIT"
	NameLayerZero = "LAYER_ZERO"
)

// Known names Skip bridge types this router has no edges for: a request naming one is
// valid and finds nothing over it.
var Known = []string{"AXELAR", "CCTP", "HYPERLANE", "GO_FAST", "STARGATE", "EUREKA", "CCTP_V2"}

// The bridges, in the order the route graph adds their edges (which orders equal routes).
var (
	Bank      Bridge = bank{}
	IBC       Bridge = ibc{}
	OPInit    Bridge = opinit{}
	LayerZero Bridge = layerZero{}
	// SwapOp is not a bridge: it reads operations sent back with a swap (no venue on the
	// devnet executes one yet, so it has no edges and builds nothing).
	SwapOp Bridge = swap{}
)

// All is the table of bridges.
var All = []Bridge{Bank, IBC, OPInit, LayerZero, SwapOp}

// Named is the bridge with a Skip bridge type name (nil when none has it).
func Named(name string) Bridge {
	for _, b := range All {
		if b.Name() != "" && b.Name() == name {
			return b
		}
	}
	return nil
}

// Kind is the kind of an edge of the route graph. A bridge may have several (OPinit has a
// deposit and a withdrawal: a route asks for the withdrawal explicitly).
type Kind uint8

// The edge kinds of the bridges.
const (
	KindIBC Kind = iota + 1
	KindDeposit
	KindWithdraw
	KindLayerZero
	// NumKinds bounds the kinds; the route graph numbers its own conversions from here.
	NumKinds
)

// Bridge is one way across. See the package comment.
type Bridge interface {
	// Name is the Skip bridge type ("" for a hop that crosses no bridge), Title its name
	// for people (/v2/info/bridges).
	Name() string
	Title() string
	// Kinds are the kinds of its edges.
	Kinds() []Kind
	// Edges are its edges out of (or, for a two-sided bridge, into) asset a on chain c.
	Edges(g Graph, c *registry.Chain, a *registry.Asset) []Edge
	// Render is its Skip operation for hop h over the edge v.
	Render(env Env, v Via, h Hop) Rendered
	// Check verifies that operation i sent back is one of its edges; inPath is the ICS-20 path
	// of the operation's input, and it returns the output's.
	Check(reg *registry.Registry, i int, op Operation, inPath string) (string, error)
	// Build is the message of the leg starting at its operation l.Ops[0].
	Build(l Leg) (Message, error)
	// Fees are the fees /msgs reports for operation i.
	Fees(env Env, i int, op Operation) []Fee
	// Watch is what the tracker stores from chains for its hops.
	Watch() []Watch
}

// Hop is an operation normalized: what search, msgs and the CLI read.
type Hop struct {
	Bridge                 Bridge // nil for an operation without a variant
	FromChainID, ToChainID string
	DenomIn, DenomOut      string
	AmountIn, AmountOut    string
	TxIndex                int
	// Label names the hop's kind for people ("ibc", "opinit", "layerzero", "bank send", "swap"),
	// Via the bridge's own handle on it when it has one (an IBC hop's channel).
	Label, Via string
}

// Graph is what Edges reads: the route graph's nodes by (chain, denom).
type Graph interface {
	Registry() *registry.Registry
	// Node is the chain and asset of a node, false when the graph has none there.
	Node(chainID, denom string) (*registry.Chain, *registry.Asset, bool)
	// Estimates are the durations and fees the graph was configured with.
	Estimates() Estimates
}

// Estimates are what the router cannot learn from chains (route.Config, defaults applied).
type Estimates struct {
	IBCSeconds, OPDepositSeconds, OPWithdrawSeconds, LayerZeroSeconds int
	// LayerZeroFee is the messaging fee per source chain id (its fee token's base unit).
	LayerZeroFee map[string]string
}

// Endpoint is one side of an edge.
type Endpoint struct{ ChainID, Denom string }

// Edge is one hop the route graph may take: its endpoints, and what rendering it needs.
type Edge struct {
	From, To Endpoint
	Via
}

// Via is what the route graph keeps of an edge to render its hop.
type Via struct {
	Kind Kind
	// IBC: the channel on the from chain.
	Port, Channel string
	// OPinit: the bridge id.
	BridgeID uint64
	// LayerZero: the source OFT contract.
	OFT string
	// Seconds is the hop's estimated duration.
	Seconds int
}

// Env is what Render and Fees read besides the hop.
type Env struct {
	Reg        *registry.Registry
	Est        Estimates
	SmartRelay bool
	// Index is the operation's index in the route (fees name it).
	Index int
}

// Rendered is a bridge's share of a route for one hop: its operation, and the fees and notes
// it adds.
type Rendered struct {
	Op     Operation
	Fees   []Fee
	Infos  []string
	Warns  []string
	Claims bool // the hop ends in a claim the user sends separately (an OPinit withdrawal)
}

// Leg is what Build reads: the operations of one transaction from the bridge's first to the
// transaction's end, and where the coin goes.
type Leg struct {
	Reg *registry.Registry
	// From is the chain the leg starts on (nil: Ops[0]'s, looked up in Reg).
	From *registry.Chain
	Ops  []Operation
	// First is the index of Ops[0] in the route; RouteLen the route's number of operations.
	First, RouteLen int
	Sender          string
	// Receivers[i] is who receives at the end of Ops[i] (for a packet-forward run, the
	// recipient at its last hop).
	Receivers []string
	Amount    *uint256.Int
	// Deadline is the IBC timeout (Unix ns).
	Deadline uint64
	// Arrive, when set, is what the last IBC arrival runs: given the recipient there, the
	// packet's receiver and the memo it carries (an ibc-hooks call).
	Arrive func(recipient string) (receiver string, memo map[string]any, err error)
	// Hook is an OPinit deposit's op hook (MsgInitiateTokenDeposit.data).
	Hook []byte
	// Fee is a LayerZero messaging fee, MinAmount the least amount the OFT may deliver.
	Fee       string
	MinAmount *uint256.Int
	// Compose, when set, is what a LayerZero send carries for a composer on its destination
	// (the deposit after the hop, router/msgs compose.go).
	Compose *Compose
}

// Message is what Build returns: a Cosmos message (Cosmos, of TypeURL) or an EVM call.
type Message struct {
	TypeURL string
	Cosmos  proto.Message
	EVM     *EVMCall
	// Then are Cosmos messages of the same tx after this one (an approval, then the call).
	Then []Message
}

// EVMCall is a call an EVM chain's user signs.
type EVMCall struct {
	To, Value string
	Data      []byte
	Approvals []Approval
}

// Approval is an ERC-20 allowance the signer must grant first.
type Approval struct{ TokenContract, Spender, Amount string }

// Watch is one chain event a bridge's hops emit and the tracker stores.
type Watch struct {
	Event string // the event type on chain (send_packet)
	Kind  string // the tracker's kind for it
	// Key names the attributes whose values, joined by "/", key the stored event (how the
	// other side finds it).
	Key []string
	// Starts: the event starts a leg of a tracked transfer.
	Starts bool
}

// Error is a bridge's refusal of an operation; router/msgs gives it its API reason.
type Error struct {
	// Unsupported: a valid operation the router builds no message for.
	Unsupported bool
	Message     string
}

func (e *Error) Error() string { return e.Message }

// invalid and unsupported quote their args clipped (textclip.Args): the message is then passed on
// whole, denoms and addresses in full.
func invalid(format string, args ...any) error {
	return &Error{Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

func unsupported(format string, args ...any) error {
	return &Error{Unsupported: true, Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

// none is the default of the optional methods.
type none struct{}

func (none) Title() string                                        { return "" }
func (none) Kinds() []Kind                                        { return nil }
func (none) Edges(Graph, *registry.Chain, *registry.Asset) []Edge { return nil }
func (none) Fees(Env, int, Operation) []Fee                       { return nil }
func (none) Watch() []Watch                                       { return nil }

// AddressError is a recipient address on ChainID a bridge cannot send to.
type AddressError struct {
	ChainID string
	Err     error
}

func (e *AddressError) Error() string { return e.Err.Error() }

// assets resolves operation i's chains and its input and output assets; every bridge but IBC
// moves listed assets only (an IBC hop may pass an unlisted in-between voucher).
func assets(reg *registry.Registry, i int, op Operation) (from, to *registry.Chain, in, out *registry.Asset, err error) {
	h := op.Hop()
	from, to = reg.Chain(h.FromChainID), reg.Chain(h.ToChainID)
	if from == nil || to == nil {
		return nil, nil, nil, nil, invalid("operation %d names an unknown chain", i)
	}
	in, out = from.Asset(h.DenomIn), to.Asset(h.DenomOut)
	if in == nil || out == nil {
		return nil, nil, nil, nil, invalid("operation %d names an unknown denom", i)
	}
	return from, to, in, out, nil
}

// onEVM reports whether the leg starts on an EVM chain.
func onEVM(l Leg) (*registry.Chain, bool) {
	c := l.From
	if c == nil {
		c = l.Reg.Chain(l.Ops[0].Hop().FromChainID)
	}
	return c, c != nil && c.Type == registry.ChainTypeEVM
}

// notOnEVM is the answer of a bridge that sends from Cosmos chains only.
func notOnEVM(l Leg, c *registry.Chain) error {
	return unsupported("operation %d cannot run on EVM chain %s", l.First, c.ID)
}

// byKind is the bridge of each edge kind.
var byKind = func() (out [NumKinds]Bridge) {
	for _, b := range All {
		for _, k := range b.Kinds() {
			out[k] = b
		}
	}
	return out
}()

// Of is the bridge whose edges are of kind k (nil for a kind no bridge has).
func Of(k Kind) Bridge {
	if k < NumKinds {
		return byKind[k]
	}
	return nil
}
