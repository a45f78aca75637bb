package track

// LayerZero hops. A LayerZero v2 OFT send is one packet identified by its GUID: the source
// OFT emits OFTSent(guid, dstEid, from, amountSentLD, amountReceivedLD) in the user's tx, the
// destination OFT emits OFTReceived(guid, srcEid, to, amountReceivedLD) in the executor's
// lzReceive tx (LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/evm/oapp/contracts/oft/
// interfaces/IOFT.sol; the Move OFT's OftSent / OftReceived carry the same fields,
// LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/aptos/contracts/oapps/oft/sources/internal/
// oft_core.move). The tracker stores both keyed by the GUID (bridge.Watch of LayerZero): on a
// CometBFT chain from the tx's Move events (moveLayerZero, called by extract), on an EVM chain
// from its logs (evmscan.go). A hop is
//
//   - LAYER_ZERO_TRANSFER_SENT from the send until the receive is stored on the destination
//     (the chain whose endpoint id is the send's dst_eid),
//   - LAYER_ZERO_TRANSFER_RECEIVED once it is: the funds are released there,
//   - abandoned (the transfer's STATE_ABANDONED, the hop still SENT: nothing says it failed)
//     when no receive came within the tracker's AbandonAfter of the send's block time, in
//     chain time (the latest block the tracker scanned on either chain). Skip
//     abandons a transfer whose "cross-chain sequence of actions stalls" (its TransactionState,
//     skip-go-api OpenAPI document; skip-mev/skip-go@fa6095e:packages/client/src/types/
//     swaggerTypes.ts TransactionState); here the window is the one AbandonAfter the tracker
//     already has for a tx never seen, so one knob says how long the tracker waits.
//
// The hop's wire shape is Skip's LayerZeroTransferInfo {from_chain_id, to_chain_id, state, txs
// {send_tx, receive_tx, compose_tx, error_tx}} and its states LayerZeroTransferState
// (skip-mev/skip-go@fa6095e:packages/client/src/types/swaggerTypesJson.ts
// LayerZeroTransferInfoJson, LayerZeroTransferTransactionsJson, LayerZeroTransferStateJson),
// plus rollgate's guid.
//
// A send with a compose message (Ethereum → L1 → a rollup in one tx: the OFT pays the L1's
// OPinit composer) is LAYER_ZERO_TRANSFER_WAITING_FOR_COMPOSE once the receive is stored with
// a ComposeSent in the same message (the endpoint's, messaging_composer.move), and RECEIVED
// once its ComposeDelivered is (the executor's lz_compose tx: compose_tx); the deposit that
// tx started (initiate_token_deposit after ComposeDelivered in the same message) is the next
// hop, followed as any deposit. A compose that never comes is abandoned as a packet is, the
// window counted from the receive.

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// Event kinds of LayerZero hops.
const (
	KindLZSent = bridge.EventLZSent // OFTSent / OftSent on the source, key guid
	KindLZRecv = bridge.EventLZRecv // OFTReceived / OftReceived on the destination, key guid
	// ComposeSent / ComposeDelivered of the destination endpoint, key guid
	KindLZComposeSent = bridge.EventLZComposeSent
	KindLZComposed    = bridge.EventLZComposed
)

// Skip's LayerZeroTransferState.
const (
	LZUnknown  = "LAYER_ZERO_TRANSFER_UNKNOWN"
	LZSent     = "LAYER_ZERO_TRANSFER_SENT"
	LZCompose  = "LAYER_ZERO_TRANSFER_WAITING_FOR_COMPOSE"
	LZReceived = "LAYER_ZERO_TRANSFER_RECEIVED"
	LZFailed   = "LAYER_ZERO_TRANSFER_FAILED"
)

// LayerZeroTxs is Skip's LayerZeroTransferTransactions; absent txs are null.
type LayerZeroTxs struct {
	SendTx    *ChainTx `json:"send_tx"`
	ReceiveTx *ChainTx `json:"receive_tx"`
	ComposeTx *ChainTx `json:"compose_tx"`
	ErrorTx   *ChainTx `json:"error_tx"`
}

// LayerZeroTransferInfo is one LayerZero hop.
type LayerZeroTransferInfo struct {
	FromChainID string       `json:"from_chain_id"`
	ToChainID   string       `json:"to_chain_id"`
	State       string       `json:"state"`
	Txs         LayerZeroTxs `json:"txs"`
	// GUID is the packet's GUID (rollgate extension; Skip's hop names none).
	GUID string `json:"guid,omitempty"`
}

func (x *LayerZeroTransferInfo) hop() HopStatus {
	return HopStatus{Bridge: "layerzero", FromChainID: x.FromChainID, ToChainID: x.ToChainID, State: x.State,
		Txs: []*ChainTx{x.Txs.SendTx, x.Txs.ReceiveTx, x.Txs.ComposeTx, x.Txs.ErrorTx}}
}

// lzEvent names the Move event (the last part of its type tag) or EVM event of each stored
// LayerZero event type.
var lzMoveEvents = map[string]string{
	"OftSent":     bridge.EventLZOFTSent,
	"OFTSent":     bridge.EventLZOFTSent,
	"OftReceived": bridge.EventLZOFTReceived,
	"OFTReceived": bridge.EventLZOFTReceived,
	// The endpoint's messaging_composer events.
	"ComposeSent":      bridge.EventLZComposeSentEvent,
	"ComposeDelivered": bridge.EventLZComposeDeliveredEvent,
}

// moveLayerZero rewrites a Move event (type "move", attributes type_tag and data, the event's
// fields as JSON: initia-labs/initia:x/move/keeper/handler.go emits them so) that is an OFT's
// send or receive as the ABCI event extract stores: its type the Watch's, its attributes the
// data's fields (guid normalized) plus "oft", the emitting module's address. Any other event is
// returned as it is.
func moveLayerZero(ev comet.Event) comet.Event {
	if ev.Type != moveEventType {
		return ev
	}
	var tag, data string
	for _, a := range ev.Attributes {
		switch a.Key {
		case "type_tag":
			tag = a.Value
		case "data":
			data = a.Value
		}
	}
	parts := strings.Split(tag, "::")
	if len(parts) != 3 {
		return ev
	}
	typ, ok := lzMoveEvents[parts[2]]
	if !ok {
		return ev
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &fields); err != nil {
		return ev
	}
	out := comet.Event{Type: typ, Attributes: []comet.EventAttribute{{Key: "oft", Value: strings.ToLower(parts[0])}}}
	for k, raw := range fields {
		v := moveValue(raw)
		if k == "guid" {
			v = normGUID(v)
		}
		out.Attributes = append(out.Attributes, comet.EventAttribute{Key: k, Value: v})
	}
	for _, a := range ev.Attributes {
		if a.Key == "msg_index" {
			out.Attributes = append(out.Attributes, a)
		}
	}
	return out
}

// moveValue is a Move event field as text: a string as it is, a number in decimal, a wrapper
// struct of one field (LayerZero's Bytes32 {bytes}) as that field, anything else as JSON.
func moveValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && len(obj) == 1 {
		for _, v := range obj {
			return moveValue(v)
		}
	}
	return string(raw)
}

// normGUID is a GUID as 0x + 64 lower-case hex digits; Move may print a vector<u8> as hex or
// as a JSON array of bytes.
func normGUID(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var b []byte
		var nums []int
		if json.Unmarshal([]byte(s), &nums) == nil {
			for _, n := range nums {
				b = append(b, byte(n))
			}
			return "0x" + hex.EncodeToString(b)
		}
	}
	return "0x" + strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
}

// lzChain is the registry chain of a LayerZero endpoint id.
func lzChain(reg *registry.Registry, eid string) *registry.Chain {
	n, err := strconv.ParseUint(eid, 10, 32)
	if err != nil || n == 0 {
		return nil
	}
	for _, c := range reg.Chains {
		if uint64(c.LZEndpointID) == n {
			return c
		}
	}
	return nil
}

// lzPeerDenom is the denom the OFT send's peer delivers on dst: the peer of the source chain's
// asset whose OFT emitted the send ("" when the registry lists no such asset).
func lzPeerDenom(src *registry.Chain, oft string, dst *registry.Chain) string {
	if src == nil || dst == nil {
		return ""
	}
	for _, a := range src.Assets {
		if a.LZ != nil && sameAddr(a.LZ.OFT, oft) && a.LZ.PeerChainID == dst.ID {
			return a.LZ.PeerDenom
		}
	}
	for _, a := range dst.Assets {
		// The peer side names the pair when this side's listing does not.
		if a.LZ != nil && a.LZ.PeerChainID == src.ID {
			return a.Denom
		}
	}
	return ""
}

// sameAddr compares addresses as hex, ignoring case and leading zeros (Move prints 0x1 for
// 0x000…01).
func sameAddr(a, b string) bool {
	trim := func(s string) string {
		return strings.TrimLeft(strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")), "0")
	}
	return a != "" && trim(a) == trim(b)
}

// layerZero evaluates the hop a stored OFT send starts.
func (e *evaluation) layerZero(ev *Event, seq *[]TransferEvent) legResult {
	a := ev.Attrs
	guid := ev.Key
	hop := &LayerZeroTransferInfo{FromChainID: ev.ChainID, State: LZSent, Txs: LayerZeroTxs{SendTx: e.chainTx(ev)}, GUID: guid}
	*seq = append(*seq, TransferEvent{LayerZeroTransfer: hop})
	dst := lzChain(e.reg, a["dst_eid"])
	amount := a["amount_received_ld"]
	if dst == nil {
		// An endpoint the registry does not list: nothing to watch, the funds left here.
		return legResult{out: pending, release: &AssetRelease{ChainID: ev.ChainID, Denom: "", Amount: strp(amount)}}
	}
	hop.ToChainID = dst.ID
	at := &AssetRelease{ChainID: dst.ID, Denom: lzPeerDenom(e.reg.Chain(ev.ChainID), a["oft"], dst), Amount: strp(amount)}
	if recv := e.find(dst.ID, KindLZRecv, guid); recv != nil {
		hop.State = LZReceived
		hop.Txs.ReceiveTx = e.chainTx(recv)
		if v := recv.Attrs["amount_received_ld"]; v != "" {
			at.Amount = strp(v)
		}
		if cs := e.sameMsg(recv, KindLZComposeSent, true); len(cs) > 0 {
			return e.lzCompose(hop, recv, at, seq)
		}
		at.Released = true
		return legResult{out: delivered, release: at}
	}
	if e.stalled(ev.Time, dst.ID, ev.ChainID) {
		return legResult{out: pending, abandoned: true, release: at, err: &StatusError{Type: StatusErrorIndexing,
			Message: fmt.Sprintf("LayerZero packet %s from %s not delivered on %s within %s", guid, ev.ChainID, dst.ID, e.abandonAfter)}}
	}
	return legResult{out: pending, release: at}
}

// lzCompose follows a received send that carries a compose message: waiting for the
// composer's lz_compose, then what it started (an OPinit deposit).
func (e *evaluation) lzCompose(hop *LayerZeroTransferInfo, recv *Event, at *AssetRelease, seq *[]TransferEvent) legResult {
	hop.State = LZCompose
	done := e.find(recv.ChainID, KindLZComposed, hop.GUID)
	if done == nil {
		if e.stalled(recv.Time, recv.ChainID) {
			return legResult{out: pending, abandoned: true, release: at, err: &StatusError{Type: StatusErrorIndexing,
				Message: fmt.Sprintf("LayerZero compose of %s not delivered on %s within %s", hop.GUID, recv.ChainID, e.abandonAfter)}}
		}
		return legResult{out: pending, release: at}
	}
	hop.State = LZReceived
	hop.Txs.ComposeTx = e.chainTx(done)
	if deps := e.sameMsg(done, KindDInit, false); len(deps) > 0 {
		return e.deposit(&deps[0], seq)
	}
	at.Released = true
	return legResult{out: delivered, release: at}
}

// stalled reports whether nothing came within the window since t, in chain time: the last
// block the tracker scanned on any of chains. A tracker that was down, or a chain that halted,
// does not abandon what the chains had no time to deliver. When not stalled yet it asks for
// the evaluation again once the window would pass.
func (e *evaluation) stalled(t time.Time, chains ...string) bool {
	w := e.abandonAfter
	if e.err != nil || e.missing || w <= 0 {
		return false
	}
	var clock time.Time
	for _, c := range chains {
		ct, err := e.st.ChainTime(e.ctx, c)
		if err != nil {
			e.failed(err)
			return false
		}
		if ct.After(clock) {
			clock = ct
		}
	}
	if clock.IsZero() {
		return false
	}
	waited := clock.Sub(t)
	if waited > w {
		return true
	}
	e.recheckAt(e.now.Add(w - waited + time.Second))
	return false
}

// recheckAt asks for an evaluation at t at the latest.
func (e *evaluation) recheckAt(t time.Time) {
	if e.recheck.IsZero() || t.Before(e.recheck) {
		e.recheck = t
	}
}

// moveEventType is the ABCI event type under which a Move chain reports its module events.
const moveEventType = "move"
