package track

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/router/bridge"
)

// Event kinds stored by the scanners: what each bridge says its hops emit (bridge.Watch: the
// ICS-04 packet events, the OPinit deposit and withdrawal events), and "tx" for a tracked tx
// itself (its code and log: a failed tx keeps no message events).
const (
	KindSend    = bridge.EventSend    // send_packet, key src port/channel/sequence
	KindRecv    = bridge.EventRecv    // recv_packet, key dst port/channel/sequence
	KindWAck    = bridge.EventWAck    // write_acknowledgement, key dst port/channel/sequence
	KindAck     = bridge.EventAck     // acknowledge_packet, key src port/channel/sequence
	KindTimeout = bridge.EventTimeout // timeout_packet, key src port/channel/sequence
	KindDInit   = bridge.EventDInit   // initiate_token_deposit (L1), key bridge id/l1 sequence
	KindDFin    = bridge.EventDFin    // finalize_token_deposit (L2), key l1 sequence
	KindWInit   = bridge.EventWInit   // initiate_token_withdrawal (L2), key l2 sequence
	KindWFin    = bridge.EventWFin    // finalize_token_withdrawal (L1), key bridge id/l2 sequence
	KindTx      = "tx"                // a tracked tx, key its hash; attrs code, log
)

// watched is every bridge's Watch by chain event type, the key attributes of each kind, and
// the kinds that start a leg.
var eventKinds, eventKeys, startKinds = func() (kinds map[string]string, keys map[string][]string, starts map[string]bool) {
	kinds, keys, starts = map[string]string{}, map[string][]string{}, map[string]bool{}
	for _, b := range bridge.All {
		for _, w := range b.Watch() {
			kinds[w.Event], keys[w.Kind] = w.Kind, w.Key
			if w.Starts {
				starts[w.Kind] = true
			}
		}
	}
	return kinds, keys, starts
}()

func packetKey(port, channel, seq string) string { return port + "/" + channel + "/" + seq }

// keyOf computes the stored key of a bridge event from its attributes.
func keyOf(kind string, a map[string]string) string {
	attrs := eventKeys[kind]
	switch len(attrs) {
	case 0:
		return ""
	case 1:
		return a[attrs[0]]
	}
	parts := make([]string, len(attrs))
	for i, k := range attrs {
		parts[i] = a[k]
	}
	return strings.Join(parts, "/")
}

// TxHash is the CometBFT hash of raw tx bytes (upper-case hex SHA-256).
func TxHash(raw []byte) string {
	sum := sha256.Sum256(raw)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// extract returns the bridge events of one executed tx, plus its "tx" row when track is set.
func extract(chainID string, height int64, txIndex int, hash string, at time.Time, res *comet.ExecTxResult, track bool) []Event {
	var out []Event
	if track {
		out = append(out, Event{ChainID: chainID, Kind: KindTx, Key: hash, Height: height, TxIndex: txIndex, Pos: -1, MsgIndex: -1,
			TxHash: hash, Time: at, Attrs: map[string]string{"code": strconv.FormatUint(uint64(res.Code), 10), "log": res.Log, "codespace": res.Codespace}})
	}
	if res.Code != 0 {
		return out // a failed tx keeps only its ante events
	}
	for pos, ev := range res.Events {
		ev = moveLayerZero(ev) // an OFT's Move event, as its LayerZero Watch names it
		kind, ok := eventKinds[ev.Type]
		if !ok {
			continue
		}
		a := make(map[string]string, len(ev.Attributes))
		for _, at := range ev.Attributes {
			a[at.Key] = at.Value
		}
		mi := -1
		if v, err := strconv.Atoi(a["msg_index"]); err == nil {
			mi = v
		}
		out = append(out, Event{ChainID: chainID, Kind: kind, Key: keyOf(kind, a), Height: height, TxIndex: txIndex, Pos: pos,
			MsgIndex: mi, TxHash: hash, Time: at, Attrs: a})
	}
	return out
}

// packetData is the ICS-20 FungibleTokenPacketData of a packet event.
type packetData struct {
	Denom    string `json:"denom"`
	Amount   string `json:"amount"`
	Sender   string `json:"sender"`
	Receiver string `json:"receiver"`
	Memo     string `json:"memo"`
}

func parsePacket(a map[string]string) packetData {
	var d packetData
	raw := []byte(a["packet_data"])
	if h, err := hex.DecodeString(a["packet_data_hex"]); err == nil && len(h) > 0 {
		raw = h
	}
	_ = json.Unmarshal(raw, &d)
	return d
}

// ackResult reads a write_acknowledgement's ack: ok, or the error text.
func ackResult(a map[string]string) (ok bool, errText string) {
	raw := []byte(a["packet_ack"])
	if h, err := hex.DecodeString(a["packet_ack_hex"]); err == nil && len(h) > 0 {
		raw = h
	}
	var ack struct {
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(raw, &ack); err != nil {
		return false, "undecodable acknowledgement: " + string(raw)
	}
	if ack.Error != "" || len(ack.Result) == 0 {
		if ack.Error == "" {
			ack.Error = "empty acknowledgement"
		}
		return false, ack.Error
	}
	return true, ""
}
