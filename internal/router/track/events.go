package track

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
)

// Event kinds stored by the scanners: the ICS-04 packet events, the OPinit deposit and
// withdrawal events, and "tx" for a tracked tx itself (its code and log: a failed tx keeps
// no message events).
const (
	KindSend    = "send"    // send_packet, key src port/channel/sequence
	KindRecv    = "recv"    // recv_packet, key dst port/channel/sequence
	KindWAck    = "wack"    // write_acknowledgement, key dst port/channel/sequence
	KindAck     = "ack"     // acknowledge_packet, key src port/channel/sequence
	KindTimeout = "timeout" // timeout_packet, key src port/channel/sequence
	KindDInit   = "dinit"   // initiate_token_deposit (L1), key bridge id/l1 sequence
	KindDFin    = "dfin"    // finalize_token_deposit (L2), key l1 sequence
	KindWInit   = "winit"   // initiate_token_withdrawal (L2), key l2 sequence
	KindWFin    = "wfin"    // finalize_token_withdrawal (L1), key bridge id/l2 sequence
	KindTx      = "tx"      // a tracked tx, key its hash; attrs code, log
)

var eventKinds = map[string]string{
	"send_packet":               KindSend,
	"recv_packet":               KindRecv,
	"write_acknowledgement":     KindWAck,
	"acknowledge_packet":        KindAck,
	"timeout_packet":            KindTimeout,
	"initiate_token_deposit":    KindDInit,
	"finalize_token_deposit":    KindDFin,
	"initiate_token_withdrawal": KindWInit,
	"finalize_token_withdrawal": KindWFin,
}

func packetKey(port, channel, seq string) string { return port + "/" + channel + "/" + seq }

// keyOf computes the stored key of a bridge event from its attributes.
func keyOf(kind string, a map[string]string) string {
	switch kind {
	case KindSend, KindAck, KindTimeout:
		return packetKey(a["packet_src_port"], a["packet_src_channel"], a["packet_sequence"])
	case KindRecv, KindWAck:
		return packetKey(a["packet_dst_port"], a["packet_dst_channel"], a["packet_sequence"])
	case KindDInit:
		return a["bridge_id"] + "/" + a["l1_sequence"]
	case KindDFin:
		return a["l1_sequence"]
	case KindWInit:
		return a["l2_sequence"]
	case KindWFin:
		return a["bridge_id"] + "/" + a["l2_sequence"]
	}
	return ""
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
