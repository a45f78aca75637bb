package ibc

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Version is the ICS-20 application version string of every transfer channel.
const Version = "ics20-1"

// PacketData is the ICS-20 FungibleTokenPacketData.
type PacketData struct {
	Denom    string `json:"denom"`
	Amount   string `json:"amount"`
	Sender   string `json:"sender"`
	Receiver string `json:"receiver"`
	Memo     string `json:"memo,omitempty"`
}

// Bytes is the packet data as ibc-go puts it on the wire: proto JSON with the original
// field names and empty fields omitted, then key-sorted and re-encoded by Go's
// encoding/json (sdk.MustSortJSON), which also HTML-escapes <, > and &.
func (d PacketData) Bytes() []byte {
	m := map[string]string{}
	for k, v := range map[string]string{"denom": d.Denom, "amount": d.Amount, "sender": d.Sender, "receiver": d.Receiver, "memo": d.Memo} {
		if v != "" {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m) // a map of strings always encodes
	return b
}

// ParsePacketData decodes and validates ICS-20 packet data the way the transfer module
// does before touching any balance.
func ParsePacketData(b []byte) (PacketData, error) {
	var d PacketData
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return PacketData{}, fmt.Errorf("cannot unmarshal ICS-20 transfer packet data: %w", err)
	}
	if err := d.Validate(); err != nil {
		return PacketData{}, err
	}
	return d, nil
}

// Validate is FungibleTokenPacketData.ValidateBasic.
func (d PacketData) Validate() error {
	amt, ok := new(big.Int).SetString(d.Amount, 10)
	if !ok {
		return coded("transfer", 5, fmt.Sprintf("unable to parse transfer amount (%s) into math.Int: invalid token amount", d.Amount))
	}
	if amt.Sign() <= 0 {
		return coded("transfer", 5, fmt.Sprintf("amount must be strictly positive: got %s: invalid token amount", d.Amount))
	}
	if strings.TrimSpace(d.Sender) == "" {
		return coded("ibc", 7, "sender address cannot be blank: invalid address")
	}
	if strings.TrimSpace(d.Receiver) == "" {
		return coded("ibc", 7, "receiver address cannot be blank: invalid address")
	}
	if strings.TrimSpace(d.Denom) == "" {
		return coded("transfer", 3, "denom cannot be blank: invalid denomination for cross-chain transfer")
	}
	return nil
}

// AmountInt returns the amount (valid data only).
func (d PacketData) AmountInt() *big.Int {
	a, _ := new(big.Int).SetString(d.Amount, 10)
	return a
}

// SuccessAckResult is the ICS-20 success result byte.
var SuccessAckResult = []byte{1}

// Ack is a channel acknowledgement: exactly one of Result / Error.
type Ack struct {
	Result []byte
	Error  string
	IsErr  bool
}

// SuccessAck is the ICS-20 success acknowledgement.
func SuccessAck() Ack { return Ack{Result: SuccessAckResult} }

// ErrorAck wraps an error string.
func ErrorAck(msg string) Ack { return Ack{Error: msg, IsErr: true} }

// Bytes is Acknowledgement.Acknowledgement(): key-sorted JSON of the oneof.
func (a Ack) Bytes() []byte {
	var b []byte
	if a.IsErr {
		b, _ = json.Marshal(map[string]string{"error": a.Error})
	} else {
		b, _ = json.Marshal(map[string]string{"result": base64.StdEncoding.EncodeToString(a.Result)})
	}
	return b
}

// Text is the gogoproto compact text rendering of the acknowledgement
// (what `fungible_token_packet.acknowledgement` carries), e.g. `result:"\001" `.
func (a Ack) Text() string {
	if a.IsErr {
		return "error:" + protoTextQuote([]byte(a.Error)) + " "
	}
	return "result:" + protoTextQuote(a.Result) + " "
}

// protoTextQuote renders bytes the way the protobuf text format does: printable ASCII
// as is, quote/backslash escaped, common controls as \n \r \t, the rest as octal.
func protoTextQuote(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch c {
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '"':
			sb.WriteString(`\"`)
		case '\'':
			sb.WriteString(`\'`)
		case '\\':
			sb.WriteString(`\\`)
		default:
			if c >= 0x20 && c < 0x7f {
				sb.WriteByte(c)
			} else {
				fmt.Fprintf(&sb, `\%03o`, c)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// ParseAck decodes acknowledgement bytes.
func ParseAck(b []byte) (Ack, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Ack{}, fmt.Errorf("cannot unmarshal ICS-20 transfer packet acknowledgement: %w", err)
	}
	if v, ok := raw["error"]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return Ack{}, fmt.Errorf("cannot unmarshal ICS-20 transfer packet acknowledgement: %w", err)
		}
		return ErrorAck(s), nil
	}
	if v, ok := raw["result"]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return Ack{}, fmt.Errorf("cannot unmarshal ICS-20 transfer packet acknowledgement: %w", err)
		}
		r, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return Ack{}, fmt.Errorf("cannot unmarshal ICS-20 transfer packet acknowledgement: %w", err)
		}
		return Ack{Result: r}, nil
	}
	return Ack{}, errors.New("cannot unmarshal ICS-20 transfer packet acknowledgement: no response")
}

// ErrorAckFromErr is channeltypes.NewErrorAcknowledgement: only the ABCI code of the
// error is kept so the bytes are deterministic.
func ErrorAckFromErr(err error) Ack {
	code := uint32(1)
	var ce *sim.CodedError
	if errors.As(err, &ce) {
		code = ce.Code
	}
	return ErrorAck(fmt.Sprintf("ABCI code: %d: error handling packet: see events for details", code))
}

// HeightString renders a client height as "<revision>-<height>".
func HeightString(h *clientv1.Height) string {
	if h == nil {
		return "0-0"
	}
	return fmt.Sprintf("%d-%d", h.RevisionNumber, h.RevisionHeight)
}

// heightIsZero reports whether the height is unset.
func heightIsZero(h *clientv1.Height) bool {
	return h == nil || (h.RevisionNumber == 0 && h.RevisionHeight == 0)
}

// heightGTE compares (revision, height) lexicographically.
func heightGTE(a, b *clientv1.Height) bool {
	if a.RevisionNumber != b.RevisionNumber {
		return a.RevisionNumber > b.RevisionNumber
	}
	return a.RevisionHeight >= b.RevisionHeight
}

// RevisionNumber parses the revision of a chain id the way ibc-go does: the number after
// the last "-" when the id looks like "name-N" (N without a leading zero), else 0.
func RevisionNumber(chainID string) uint64 {
	i := strings.LastIndexByte(chainID, '-')
	if i <= 0 || i == len(chainID)-1 {
		return 0
	}
	digits := chainID[i+1:]
	if digits[0] == '0' {
		return 0
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Commitment is the ICS-04 packet commitment:
// SHA-256(be64 timeout timestamp ‖ be64 revision number ‖ be64 revision height ‖ SHA-256(data)).
func Commitment(timeoutTimestamp uint64, timeoutHeight *clientv1.Height, data []byte) []byte {
	buf := make([]byte, 24, 56)
	binary.BigEndian.PutUint64(buf[0:], timeoutTimestamp)
	if timeoutHeight != nil {
		binary.BigEndian.PutUint64(buf[8:], timeoutHeight.RevisionNumber)
		binary.BigEndian.PutUint64(buf[16:], timeoutHeight.RevisionHeight)
	}
	d := sha256.Sum256(data)
	buf = append(buf, d[:]...)
	sum := sha256.Sum256(buf)
	return sum[:]
}

// EscrowAddress is the ICS-20 escrow account of a channel end:
// first 20 bytes of SHA-256("ics20-1" ‖ 0x00 ‖ "<port>/<channel>").
func EscrowAddress(port, channel string) []byte {
	pre := append([]byte(Version), 0)
	pre = append(pre, port+"/"+channel...)
	sum := sha256.Sum256(pre)
	return sum[:20]
}

// ForwardReceiver is the packet-forward-middleware intermediate account of a hop:
// the first 20 bytes of SHA-256(SHA-256("packetfowardmiddleware") ‖ "<dest channel>/<sender>")
// (the module name is misspelled upstream, and the spelling is part of the formula).
func ForwardReceiver(destChannel, originalSender string) []byte {
	return address.Hash("packetfowardmiddleware", []byte(destChannel+"/"+originalSender))[:20]
}

// HookIntermediary is the ibc-hooks intermediary sender for a VM (move, evm, wasm): the full
// 32-byte SHA-256(SHA-256("ibc-<vm>-hook-intermediary") ‖ "<dest channel>/<sender>").
func HookIntermediary(vm vmkind.Kind, destChannel, sender string) []byte {
	return address.Hash("ibc-"+vm.String()+"-hook-intermediary", []byte(destChannel+"/"+sender))
}

// coded builds the error type the engine turns into a failed tx's codespace and code.
func coded(codespace string, code uint32, msg string) error {
	return &sim.CodedError{Codespace: codespace, Code: code, Log: msg}
}
