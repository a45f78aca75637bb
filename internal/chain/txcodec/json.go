package txcodec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

// The chain's REST gateway renders protos with gogoproto's jsonpb (original field
// names, defaults emitted, 64-bit integers as strings, enums by name, Any inline with
// @type). Where the upstream Go types carry gogoproto options, the rendering follows the
// Go type rather than the .proto, so those cases are listed here.

// nonNullable lists message fields declared (gogoproto.nullable) = false upstream: the
// Go struct always holds a value, so an absent field renders as an object, never null.
var nonNullable = map[protoreflect.FullName]bool{
	"ibc.applications.transfer.v1.MsgTransfer.token":          true,
	"ibc.applications.transfer.v1.MsgTransfer.timeout_height": true,
	"ibc.core.channel.v1.Packet.timeout_height":               true,
	"ibc.core.channel.v1.MsgRecvPacket.packet":                true,
	"ibc.core.channel.v1.MsgRecvPacket.proof_height":          true,
	"ibc.core.channel.v1.MsgAcknowledgement.packet":           true,
	"ibc.core.channel.v1.MsgAcknowledgement.proof_height":     true,
	"ibc.core.channel.v1.MsgTimeout.packet":                   true,
	"ibc.core.channel.v1.MsgTimeout.proof_height":             true,
	"opinit.ophost.v1.MsgInitiateTokenDeposit.amount":         true,
	"opinit.ophost.v1.MsgFinalizeTokenWithdrawal.amount":      true,
	"opinit.opchild.v1.MsgFinalizeTokenDeposit.amount":        true,
	"opinit.opchild.v1.MsgInitiateTokenWithdrawal.amount":     true,
	"miniwasm.tokenfactory.v1.MsgMint.amount":                 true,
	"miniwasm.tokenfactory.v1.MsgBurn.amount":                 true,
}

// intFields are strings with the cosmossdk.io/math.Int custom type: an empty value
// decodes to the zero Int, which renders as "0".
var intFields = map[protoreflect.FullName]bool{
	"cosmos.base.v1beta1.Coin.amount": true,
	"minievm.evm.v1.MsgCall.value":    true,
	"minievm.evm.v1.MsgCreate.value":  true,
	"minievm.evm.v1.MsgCreate2.value": true,
}

// decFields are LegacyDec strings: the wire holds the integer scaled by 10^18, JSON
// shows the decimal with 18 fractional digits.
var decFields = map[protoreflect.FullName]bool{
	"cosmos.base.v1beta1.DecCoin.amount": true,
}

// rawJSONFields are wasmd RawContractMessage bytes, rendered inline as JSON.
var rawJSONFields = map[protoreflect.FullName]bool{
	"cosmwasm.wasm.v1.MsgInstantiateContract.msg":  true,
	"cosmwasm.wasm.v1.MsgInstantiateContract2.msg": true,
	"cosmwasm.wasm.v1.MsgExecuteContract.msg":      true,
	"cosmwasm.wasm.v1.MsgMigrateContract.msg":      true,
}

// MarshalJSON renders any message as the chain's REST API does, compactly. An Any (at
// any depth) whose type URL is unknown renders as {"@type": url, "value": base64}.
func MarshalJSON(m proto.Message) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeMessage(&buf, m.ProtoReflect()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TxJSON renders TxRaw bytes as the {"body","auth_info","signatures"} object of
// GET /cosmos/tx/v1beta1/txs/block/{height} and /txs/{hash}.
func TxJSON(txBytes []byte) (json.RawMessage, error) {
	d, err := Decode(txBytes)
	if err != nil {
		return nil, err
	}
	return DecodedTxJSON(d)
}

// DecodedTxJSON is TxJSON for an already decoded tx.
func DecodedTxJSON(d *DecodedTx) (json.RawMessage, error) {
	b, err := MarshalJSON(&txv1beta1.Tx{Body: d.Body, AuthInfo: d.AuthInfo, Signatures: d.Raw.Signatures})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// BlockTxsJSON renders a block's txs as the REST API's txs/block/{height} does, or returns nil
// when one of them cannot be rendered faithfully (undecodable, or a message type outside the
// project's proto subset, which would come out as a raw Any), so the caller asks REST instead.
func BlockTxsJSON(txs [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(txs))
	for i, b := range txs {
		d, err := Decode(b)
		if err != nil {
			return nil
		}
		for _, m := range d.Msgs {
			if _, unknown := m.(*anypb.Any); unknown {
				return nil
			}
		}
		if out[i], err = DecodedTxJSON(d); err != nil {
			return nil
		}
	}
	return out
}

// TxAnyJSON renders the tx as an Any-typed object ({"@type":"/cosmos.tx.v1beta1.Tx",
// "body":…}), the shape of tx_response.tx in the REST API.
func TxAnyJSON(txBytes []byte) (json.RawMessage, error) {
	d, err := Decode(txBytes)
	if err != nil {
		return nil, err
	}
	a, err := PackAny(&txv1beta1.Tx{Body: d.Body, AuthInfo: d.AuthInfo, Signatures: d.Raw.Signatures})
	if err != nil {
		return nil, err
	}
	b, err := MarshalJSON(a)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

func writeMessage(buf *bytes.Buffer, m protoreflect.Message) error {
	if m.Descriptor().FullName() == "google.protobuf.Any" {
		return writeAny(buf, m)
	}
	buf.WriteByte('{')
	if err := writeFields(buf, m, true); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

func writeAny(buf *bytes.Buffer, m protoreflect.Message) error {
	a, ok := m.Interface().(*anypb.Any)
	if !ok {
		a = &anypb.Any{}
		b, err := proto.Marshal(m.Interface())
		if err != nil {
			return err
		}
		if err := proto.Unmarshal(b, a); err != nil {
			return err
		}
	}
	buf.WriteString(`{"@type":`)
	writeString(buf, a.TypeUrl)
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(a.TypeUrl)
	if err != nil {
		buf.WriteString(`,"value":"`)
		buf.WriteString(base64.StdEncoding.EncodeToString(a.Value))
		buf.WriteString(`"}`)
		return nil
	}
	inner := mt.New()
	if err := proto.Unmarshal(a.Value, inner.Interface()); err != nil {
		return fmt.Errorf("decode any %s: %w", a.TypeUrl, err)
	}
	if err := writeFields(buf, inner, false); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

func writeFields(buf *bytes.Buffer, m protoreflect.Message, first bool) error {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() && !m.Has(fd) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, string(fd.Name()))
		buf.WriteByte(':')
		if err := writeField(buf, m, fd); err != nil {
			return err
		}
	}
	return nil
}

func writeField(buf *bytes.Buffer, m protoreflect.Message, fd protoreflect.FieldDescriptor) error {
	switch {
	case fd.IsList():
		l := m.Get(fd).List()
		buf.WriteByte('[')
		for i := 0; i < l.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeSingular(buf, fd, l.Get(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case fd.IsMap():
		mp := m.Get(fd).Map()
		type entry struct {
			k string
			v protoreflect.Value
		}
		var entries []entry
		mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			entries = append(entries, entry{k.String(), v})
			return true
		})
		sort.Slice(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
		buf.WriteByte('{')
		for i, e := range entries {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, e.k)
			buf.WriteByte(':')
			if err := writeSingular(buf, fd.MapValue(), e.v); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
		if !m.Has(fd) && !nonNullable[fd.FullName()] {
			buf.WriteString("null")
			return nil
		}
		return writeMessage(buf, m.Get(fd).Message())
	}
	return writeSingular(buf, fd, m.Get(fd))
}

func writeSingular(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return writeMessage(buf, v.Message())
	case protoreflect.StringKind:
		s := v.String()
		switch {
		case intFields[fd.FullName()] && s == "":
			s = "0"
		case decFields[fd.FullName()]:
			s = legacyDecString(s)
		}
		writeString(buf, s)
	case protoreflect.BytesKind:
		b := v.Bytes()
		if rawJSONFields[fd.FullName()] && json.Valid(b) {
			var c bytes.Buffer
			if err := json.Compact(&c, b); err == nil {
				buf.Write(c.Bytes())
				return nil
			}
		}
		buf.WriteByte('"')
		buf.WriteString(base64.StdEncoding.EncodeToString(b))
		buf.WriteByte('"')
	case protoreflect.BoolKind:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			writeString(buf, string(ev.Name()))
		} else {
			buf.WriteString(strconv.FormatInt(int64(v.Enum()), 10))
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		buf.WriteString(`"` + strconv.FormatInt(v.Int(), 10) + `"`)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		buf.WriteString(`"` + strconv.FormatUint(v.Uint(), 10) + `"`)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			buf.WriteString(`"NaN"`)
		case math.IsInf(f, 1):
			buf.WriteString(`"Infinity"`)
		case math.IsInf(f, -1):
			buf.WriteString(`"-Infinity"`)
		default:
			bits := 64
			if fd.Kind() == protoreflect.FloatKind {
				bits = 32
			}
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, bits))
		}
	default:
		return fmt.Errorf("json: unsupported field kind %v of %s", fd.Kind(), fd.FullName())
	}
	return nil
}

// writeString escapes like encoding/json (HTML-safe), which is what jsonpb used.
func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

// legacyDecString renders a LegacyDec wire value (integer scaled by 10^18) as its
// decimal string with 18 fractional digits. Anything that is not an integer is
// returned unchanged.
func legacyDecString(s string) string {
	if s == "" {
		return "0.000000000000000000"
	}
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return s
	}
	if len(digits) <= 18 {
		digits = strings.Repeat("0", 19-len(digits)) + digits
	}
	out := digits[:len(digits)-18] + "." + digits[len(digits)-18:]
	if neg {
		out = "-" + out
	}
	return out
}
