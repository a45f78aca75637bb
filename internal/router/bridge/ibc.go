package bridge

import (
	"encoding/json"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TypeMsgTransfer is the ICS-20 transfer's message type.
const TypeMsgTransfer = "/ibc.applications.transfer.v1.MsgTransfer"

// PFMForwardTimeout is the timeout of each packet-forward hop's memo.
const PFMForwardTimeout = "10m"

// The ICS-04 packet events the tracker stores for an IBC hop.
const (
	EventSend    = "send"    // send_packet, key src port/channel/sequence
	EventRecv    = "recv"    // recv_packet, key dst port/channel/sequence
	EventWAck    = "wack"    // write_acknowledgement, key dst port/channel/sequence
	EventAck     = "ack"     // acknowledge_packet, key src port/channel/sequence
	EventTimeout = "timeout" // timeout_packet, key src port/channel/sequence
)

// Transfer is an ICS-20 hop.
type Transfer struct {
	Port         string `json:"port"`
	Channel      string `json:"channel"`
	FromChainID  string `json:"from_chain_id"`
	ToChainID    string `json:"to_chain_id"`
	PFMEnabled   bool   `json:"pfm_enabled"`
	SupportsMemo bool   `json:"supports_memo"`
	DenomIn      string `json:"denom_in"`
	DenomOut     string `json:"denom_out"`
	BridgeID     string `json:"bridge_id"`
	SmartRelay   bool   `json:"smart_relay"`
	DestDenom    string `json:"dest_denom"`
}

func (t *Transfer) withDenoms(o *Operation, in, out string) {
	c := *t
	c.DenomIn, c.DenomOut, c.DestDenom = or(in, c.DenomIn), or(out, c.DenomOut), or(out, c.DestDenom)
	o.Transfer = &c
}

func (t *Transfer) hop() Hop {
	return Hop{Bridge: IBC, FromChainID: t.FromChainID, ToChainID: t.ToChainID, DenomIn: t.DenomIn, DenomOut: t.DenomOut,
		Label: "ibc", Via: t.Channel}
}

// ibc is ICS-20 between Cosmos chains, including unwinding an `ibc/` voucher along its trace.
// A run of transfers through chains with packet-forward middleware is one message (Build).
type ibc struct{}

func (ibc) Name() string  { return NameIBC }
func (ibc) Title() string { return "IBC" }
func (ibc) Kinds() []Kind { return []Kind{KindIBC} }

// Edges: over every usable channel to another Cosmos chain, to the voucher the asset arrives
// as there.
func (ibc) Edges(g Graph, c *registry.Chain, a *registry.Asset) []Edge {
	if c.Type != registry.ChainTypeCosmos {
		return nil
	}
	reg := g.Registry()
	var out []Edge
	for _, ch := range c.Channels {
		if !ch.Usable() {
			continue
		}
		dst := reg.Chain(ch.CounterpartyChainID)
		if dst == nil || dst.Type != registry.ChainTypeCosmos {
			continue
		}
		path := registry.ReceivedPath(a.Path, ch.Port, ch.ID, ch.CounterpartyPort, ch.CounterpartyID)
		out = append(out, Edge{From: Endpoint{c.ID, a.Denom}, To: Endpoint{dst.ID, registry.IBCDenom(path)},
			Via: Via{Kind: KindIBC, Port: ch.Port, Channel: ch.ID, Seconds: g.Estimates().IBCSeconds}})
	}
	return out
}

func (ibc) Render(env Env, e Via, h Hop) Rendered {
	from := env.Reg.Chain(h.FromChainID)
	return Rendered{Op: Operation{TxIndex: h.TxIndex, AmountIn: h.AmountIn, AmountOut: h.AmountOut,
		Transfer: &Transfer{Port: e.Port, Channel: e.Channel, FromChainID: h.FromChainID, ToChainID: h.ToChainID,
			PFMEnabled: from.PFM, SupportsMemo: from.Memo, DenomIn: h.DenomIn, DenomOut: h.DenomOut,
			BridgeID: NameIBC, SmartRelay: env.SmartRelay, DestDenom: h.DenomOut}}}
}

// Check follows the input's full ICS-20 path over the operation's channel (in-between
// vouchers of a packet-forward run need not be listed).
func (ibc) Check(reg *registry.Registry, i int, op Operation, inPath string) (string, error) {
	t := op.Transfer
	from, to := reg.Chain(t.FromChainID), reg.Chain(t.ToChainID)
	if from == nil || to == nil {
		return "", invalid("operation %d names an unknown chain", i)
	}
	if inPath == "" || registry.IBCDenom(inPath) != t.DenomIn {
		return "", invalid("operation %d: denom_in %s does not follow from the previous operation", i, t.DenomIn)
	}
	ch, ok := from.Channel(t.Channel)
	if !ok || t.Port != ch.Port || ch.CounterpartyChainID != to.ID || !ch.Usable() {
		return "", invalid("operation %d: no usable channel %s/%s from %s to %s", i, t.Port, t.Channel, from.ID, to.ID)
	}
	path := registry.ReceivedPath(inPath, ch.Port, ch.ID, ch.CounterpartyPort, ch.CounterpartyID)
	if registry.IBCDenom(path) != t.DenomOut {
		return "", invalid("operation %d: %s over %s arrives as %s, not %s", i, t.DenomIn, ch.ID, registry.IBCDenom(path), t.DenomOut)
	}
	return path, nil
}

// Build is one MsgTransfer for the leg's operations, all ICS-20: the first hop is the
// message, every further hop a nested packet-forward memo. Intermediate receivers are "pfm"
// because packet-forward derives its own intermediate account; the last receiver is
// l.Receivers' last, unless l.Arrive says what the arrival runs.
func (ibc) Build(l Leg) (Message, error) {
	if c, evm := onEVM(l); evm {
		return Message{}, notOnEVM(l, c)
	}
	m, err := Transfers(l)
	if err != nil {
		return Message{}, err
	}
	return Message{TypeURL: TypeMsgTransfer, Cosmos: m}, nil
}

// Transfers is Build's MsgTransfer (router/msgs wraps it when a wrapper token sends it).
func Transfers(l Leg) (*transferv1.MsgTransfer, error) {
	for i, op := range l.Ops {
		if op.Transfer == nil {
			return nil, invalid("operation %d cannot follow an IBC transfer in the same transaction", l.First+i)
		}
		if i > 0 {
			if c := l.Reg.Chain(op.Transfer.FromChainID); c == nil || !c.PFM {
				return nil, invalid("operation %d forwards through %s, which has no packet-forward middleware", l.First+i, op.Transfer.FromChainID)
			}
		}
	}
	// The last arrival either pays the recipient or, with Arrive, runs a call.
	last := l.Receivers[len(l.Ops)-1]
	var next map[string]any
	if l.Arrive != nil {
		var err error
		if last, next, err = l.Arrive(last); err != nil {
			return nil, err
		}
	}
	for i := len(l.Ops) - 1; i > 0; i-- {
		t := l.Ops[i].Transfer
		receiver := "pfm"
		if i == len(l.Ops)-1 {
			receiver = last
		}
		next = map[string]any{"forward": orderedForward{Receiver: receiver, Port: t.Port, Channel: t.Channel, Timeout: PFMForwardTimeout, Next: next}}
	}
	t := l.Ops[0].Transfer
	receiver := last
	if len(l.Ops) > 1 {
		receiver = "pfm"
	}
	memo := ""
	if next != nil {
		mb, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		memo = string(mb)
	}
	return &transferv1.MsgTransfer{SourcePort: t.Port, SourceChannel: t.Channel,
		Token:  &basev1beta1.Coin{Denom: t.DenomIn, Amount: l.Amount.Dec()},
		Sender: l.Sender, Receiver: receiver, TimeoutHeight: &clientv1.Height{}, TimeoutTimestamp: l.Deadline, Memo: memo}, nil
}

// orderedForward keeps packet-forward's field order (receiver, port, channel, timeout, next).
type orderedForward struct {
	Receiver string         `json:"receiver"`
	Port     string         `json:"port"`
	Channel  string         `json:"channel"`
	Timeout  string         `json:"timeout"`
	Next     map[string]any `json:"next,omitempty"`
}

func (ibc) Fees(Env, int, Operation) []Fee { return nil }

// Watch: the packet's send on the source, its receipt and acknowledgement written on the
// destination, and its ack or timeout back on the source.
func (ibc) Watch() []Watch {
	src := []string{"packet_src_port", "packet_src_channel", "packet_sequence"}
	dst := []string{"packet_dst_port", "packet_dst_channel", "packet_sequence"}
	return []Watch{
		{Event: "send_packet", Kind: EventSend, Key: src, Starts: true},
		{Event: "recv_packet", Kind: EventRecv, Key: dst},
		{Event: "write_acknowledgement", Kind: EventWAck, Key: dst},
		{Event: "acknowledge_packet", Kind: EventAck, Key: src},
		{Event: "timeout_packet", Kind: EventTimeout, Key: src},
	}
}
