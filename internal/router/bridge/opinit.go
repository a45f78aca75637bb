package bridge

import (
	"fmt"
	"strconv"
	"time"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// The OPinit messages.
const (
	TypeMsgInitiateTokenDeposit    = "/opinit.ophost.v1.MsgInitiateTokenDeposit"
	TypeMsgInitiateTokenWithdrawal = "/opinit.opchild.v1.MsgInitiateTokenWithdrawal"
)

// The OPinit events the tracker stores.
const (
	EventDInit = "dinit" // initiate_token_deposit (L1), key bridge id/l1 sequence
	EventDFin  = "dfin"  // finalize_token_deposit (L2), key l1 sequence
	EventWInit = "winit" // initiate_token_withdrawal (L2), key l2 sequence
	EventWFin  = "wfin"  // finalize_token_withdrawal (L1), key bridge id/l2 sequence
)

// OPInitTransfer is an OPinit deposit (L1→L2) or withdrawal (L2→L1).
type OPInitTransfer struct {
	FromChainID    string `json:"from_chain_id"`
	ToChainID      string `json:"to_chain_id"`
	DenomIn        string `json:"denom_in"`
	DenomOut       string `json:"denom_out"`
	OPInitBridgeID string `json:"op_init_bridge_id"`
	BridgeID       string `json:"bridge_id"`
	SmartRelay     bool   `json:"smart_relay"`
}

func (o *OPInitTransfer) withDenoms(op *Operation, in, out string) {
	c := *o
	c.DenomIn, c.DenomOut = or(in, c.DenomIn), or(out, c.DenomOut)
	op.OPInitTransfer = &c
}

func (o *OPInitTransfer) hop() Hop {
	return Hop{Bridge: OPInit, FromChainID: o.FromChainID, ToChainID: o.ToChainID, DenomIn: o.DenomIn, DenomOut: o.DenomOut, Label: "opinit"}
}

// IsWithdrawal reports whether an op_init_transfer goes L2→L1 in reg.
func IsWithdrawal(reg *registry.Registry, op *OPInitTransfer) bool {
	from := reg.Chain(op.FromChainID)
	return from != nil && from.BridgeID != 0 && strconv.FormatUint(from.BridgeID, 10) == op.OPInitBridgeID
}

// Withdrawal reports whether op is an OPinit withdrawal in reg.
func Withdrawal(reg *registry.Registry, op Operation) bool { return WithdrawalHop(reg, op, op.Hop()) }

// WithdrawalHop is Withdrawal of op whose hop h the caller has already (op.Hop()).
func WithdrawalHop(reg *registry.Registry, op Operation, h Hop) bool {
	return h.Bridge == OPInit && IsWithdrawal(reg, op.OPInitTransfer)
}

// opinit is the OPinit bridge between the L1 and a rollup: a deposit (minted on the rollup
// by its executor, optionally running a signed op hook) and a withdrawal (claimed on the L1
// after the bridge's finalization period, by a separate transaction).
type opinit struct{}

func (opinit) Name() string  { return NameOPInit }
func (opinit) Title() string { return "OPinit" }
func (opinit) Kinds() []Kind { return []Kind{KindDeposit, KindWithdraw} }

// Edges: a rollup asset whose OPinit trace names this rollup's bridge is withdrawn to its L1
// denom and deposited from it.
func (opinit) Edges(g Graph, c *registry.Chain, a *registry.Asset) []Edge {
	if a.OP == nil || c.BridgeID != a.OP.BridgeID {
		return nil
	}
	est := g.Estimates()
	secs := est.OPWithdrawSeconds
	if c.OPFinalizationKnown || c.OPFinalization > 0 {
		secs = int(c.OPFinalization / time.Second)
	}
	l2, l1 := Endpoint{c.ID, a.Denom}, Endpoint{a.OP.L1ChainID, a.OP.L1Denom}
	return []Edge{
		{From: l2, To: l1, Via: Via{Kind: KindWithdraw, BridgeID: a.OP.BridgeID, Seconds: secs}},
		{From: l1, To: l2, Via: Via{Kind: KindDeposit, BridgeID: a.OP.BridgeID, Seconds: est.OPDepositSeconds}},
	}
}

func (opinit) Render(env Env, e Via, h Hop) Rendered {
	r := Rendered{Op: Operation{TxIndex: h.TxIndex, AmountIn: h.AmountIn, AmountOut: h.AmountOut,
		OPInitTransfer: &OPInitTransfer{FromChainID: h.FromChainID, ToChainID: h.ToChainID, DenomIn: h.DenomIn,
			DenomOut: h.DenomOut, OPInitBridgeID: strconv.FormatUint(e.BridgeID, 10), BridgeID: NameOPInit, SmartRelay: env.SmartRelay}}}
	if e.Kind == KindWithdraw {
		wait := fmt.Sprintf("after the bridge's finalization period (about %s)", time.Duration(e.Seconds)*time.Second)
		if e.Seconds == 0 {
			wait = "at once (the bridge's finalization period is zero)"
		}
		r.Infos = append(r.Infos, fmt.Sprintf("OPinit withdrawal from %s: claimable on %s %s; the claim is a separate transaction",
			h.FromChainID, h.ToChainID, wait))
	}
	if IsWithdrawal(env.Reg, r.Op.OPInitTransfer) {
		r.Warns = append(r.Warns, fmt.Sprintf("the OPinit withdrawal from %s is claimable on %s only after the bridge's finalization period, by a separate claim transaction",
			h.FromChainID, h.ToChainID))
	}
	return r
}

// Check: the bridge id names the rollup, and the rollup's asset is the L1 asset's OPinit
// form over that bridge.
func (opinit) Check(reg *registry.Registry, i int, op Operation, _ string) (string, error) {
	from, to, in, out, err := assets(reg, i, op)
	if err != nil {
		return "", err
	}
	o := op.OPInitTransfer
	id, perr := strconv.ParseUint(o.OPInitBridgeID, 10, 64)
	if perr != nil {
		return "", invalid("operation %d: op_init_bridge_id %q", i, o.OPInitBridgeID)
	}
	l1, l2, l1a, l2a := from, to, in, out
	if from.BridgeID == id {
		l1, l2, l1a, l2a = to, from, out, in
	}
	if l2.BridgeID != id || !l1.L1 || l2a.OP == nil || l2a.OP.BridgeID != id || l2a.OP.L1ChainID != l1.ID || l2a.OP.L1Denom != l1a.Denom {
		return "", invalid("operation %d: bridge %d does not carry %s between %s and %s", i, id, in.Denom, from.ID, to.ID)
	}
	return out.Path, nil
}

// Build is MsgInitiateTokenWithdrawal, or MsgInitiateTokenDeposit to l.Receiver carrying
// l.Hook. Nothing follows a withdrawal in its transaction; what follows a deposit runs in the
// hook, so a deposit's message carries only the deposit.
func (opinit) Build(l Leg) (Message, error) {
	if c, evm := onEVM(l); evm {
		return Message{}, notOnEVM(l, c)
	}
	o := l.Ops[0].OPInitTransfer
	if IsWithdrawal(l.Reg, o) {
		if len(l.Ops) != 1 {
			return Message{}, invalid("nothing can follow an OPinit withdrawal in the same transaction")
		}
		return Message{TypeURL: TypeMsgInitiateTokenWithdrawal, Cosmos: &opchildv1.MsgInitiateTokenWithdrawal{Sender: l.Sender, To: l.Receivers[0],
			Amount: &basev1beta1.Coin{Denom: o.DenomIn, Amount: l.Amount.Dec()}}}, nil
	}
	id, _ := strconv.ParseUint(o.OPInitBridgeID, 10, 64)
	return Message{TypeURL: TypeMsgInitiateTokenDeposit, Cosmos: &ophostv1.MsgInitiateTokenDeposit{Sender: l.Sender, BridgeId: id, To: l.Receivers[0],
		Amount: &basev1beta1.Coin{Denom: o.DenomIn, Amount: l.Amount.Dec()}, Data: l.Hook}}, nil
}

func (opinit) Fees(Env, int, Operation) []Fee { return nil }

// Watch: a deposit starts on the L1 and is finalized on the rollup; a withdrawal starts on
// the rollup and is finalized (claimed) on the L1.
func (opinit) Watch() []Watch {
	return []Watch{
		{Event: "initiate_token_deposit", Kind: EventDInit, Key: []string{"bridge_id", "l1_sequence"}, Starts: true},
		{Event: "finalize_token_deposit", Kind: EventDFin, Key: []string{"l1_sequence"}},
		{Event: "initiate_token_withdrawal", Kind: EventWInit, Key: []string{"l2_sequence"}, Starts: true},
		{Event: "finalize_token_withdrawal", Kind: EventWFin, Key: []string{"bridge_id", "l2_sequence"}},
	}
}
