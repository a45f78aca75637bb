package txcodec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

// Legacy amino JSON, as the SDK's SIGN_MODE_LEGACY_AMINO_JSON encoder (x/tx aminojson)
// writes it: registered messages as {"type": amino name, "value": {...}}; a field is
// omitted when unset unless the upstream proto marks it (amino.dont_omitempty); 64-bit
// integers as strings, 32-bit ones and enums as numbers; bytes as base64; coins fields
// with (amino.encoding) = "legacy_coins" as [] when empty; wasm messages inline; keys
// sorted (the sign mode handler sorts the whole document). The per-field options live
// in the upstream .proto files, which our generated code drops, so they are tabled here.

// ErrAmino wraps amino JSON encoding and decoding failures.
var ErrAmino = errors.New("amino json")

var aminoNames = map[protoreflect.FullName]string{
	"cosmos.bank.v1beta1.MsgSend":              "cosmos-sdk/MsgSend",
	"cosmos.bank.v1beta1.MsgMultiSend":         "cosmos-sdk/MsgMultiSend",
	"ibc.applications.transfer.v1.MsgTransfer": "cosmos-sdk/MsgTransfer",
	// ICS-721: initia-labs/amino-converter@0235bfe:src/ibc/applications/nft-transfer/tx.ts
	"ibc.applications.nft_transfer.v1.MsgTransfer": "nft-transfer/MsgTransfer",
	"opinit.ophost.v1.MsgInitiateTokenDeposit":     "ophost/MsgInitiateTokenDeposit",
	"opinit.ophost.v1.MsgFinalizeTokenWithdrawal":  "ophost/MsgFinalizeTokenWithdrawal",
	"opinit.opchild.v1.MsgExecuteMessages":         "opchild/MsgExecuteMessages",
	"opinit.opchild.v1.MsgFinalizeTokenDeposit":    "opchild/MsgFinalizeTokenDeposit",
	"opinit.opchild.v1.MsgInitiateTokenWithdrawal": "opchild/MsgInitiateTokenWithdrawal",
	"minievm.evm.v1.MsgCall":                       "evm/MsgCall",
	"minievm.evm.v1.MsgCreate":                     "evm/MsgCreate",
	"minievm.evm.v1.MsgCreate2":                    "evm/MsgCreate2",
	"initia.move.v1.MsgPublish":                    "move/MsgPublish",
	"initia.move.v1.MsgExecute":                    "move/MsgExecute",
	"initia.move.v1.MsgExecuteJSON":                "move/MsgExecuteJSON",
	"initia.move.v1.MsgScript":                     "move/MsgScript",
	"initia.move.v1.MsgScriptJSON":                 "move/MsgScriptJSON",
	"cosmwasm.wasm.v1.MsgStoreCode":                "wasm/MsgStoreCode",
	"cosmwasm.wasm.v1.MsgInstantiateContract":      "wasm/MsgInstantiateContract",
	"cosmwasm.wasm.v1.MsgInstantiateContract2":     "wasm/MsgInstantiateContract2",
	"cosmwasm.wasm.v1.MsgExecuteContract":          "wasm/MsgExecuteContract",
	"cosmwasm.wasm.v1.MsgMigrateContract":          "wasm/MsgMigrateContract",
	"miniwasm.tokenfactory.v1.MsgCreateDenom":      "tokenfactory/MsgCreateDenom",
	"miniwasm.tokenfactory.v1.MsgMint":             "tokenfactory/MsgMint",
	"miniwasm.tokenfactory.v1.MsgBurn":             "tokenfactory/MsgBurn",
	"miniwasm.tokenfactory.v1.MsgChangeAdmin":      "tokenfactory/MsgChangeAdmin",
}

var aminoByName = func() map[string]protoreflect.FullName {
	m := make(map[string]protoreflect.FullName, len(aminoNames))
	for full, name := range aminoNames {
		m[name] = full
	}
	return m
}()

// dontOmitEmpty lists fields with (amino.dont_omitempty) = true upstream. MsgCall.auth_list
// is not one (minievm's tx.proto: "Uses amino omitempty to seamlessly work with existing
// libraries"; InterwovenKit's converter leaves it out too), so an empty one is omitted and
// EIP-191/amino signatures over a wallet's MsgCall verify.
var dontOmitEmpty = map[protoreflect.FullName]bool{
	"cosmos.base.v1beta1.Coin.amount":                         true,
	"cosmos.base.v1beta1.DecCoin.amount":                      true,
	"cosmos.bank.v1beta1.MsgSend.amount":                      true,
	"cosmos.bank.v1beta1.MsgMultiSend.inputs":                 true,
	"cosmos.bank.v1beta1.MsgMultiSend.outputs":                true,
	"cosmos.bank.v1beta1.Input.coins":                         true,
	"cosmos.bank.v1beta1.Output.coins":                        true,
	"ibc.applications.transfer.v1.MsgTransfer.token":          true,
	"ibc.applications.transfer.v1.MsgTransfer.timeout_height": true,
	"ibc.core.channel.v1.Packet.timeout_height":               true,
	"opinit.ophost.v1.MsgInitiateTokenDeposit.amount":         true,
	"opinit.ophost.v1.MsgFinalizeTokenWithdrawal.amount":      true,
	"opinit.opchild.v1.MsgFinalizeTokenDeposit.amount":        true,
	"opinit.opchild.v1.MsgFinalizeTokenDeposit.data":          true,
	"opinit.opchild.v1.MsgInitiateTokenWithdrawal.amount":     true,
	"minievm.evm.v1.MsgCall.value":                            true,
	"minievm.evm.v1.MsgCall.access_list":                      true,
	"minievm.evm.v1.MsgCreate.value":                          true,
	"minievm.evm.v1.MsgCreate.access_list":                    true,
	"minievm.evm.v1.MsgCreate2.value":                         true,
	"minievm.evm.v1.MsgCreate2.access_list":                   true,
	"cosmwasm.wasm.v1.MsgInstantiateContract.funds":           true,
	"cosmwasm.wasm.v1.MsgInstantiateContract2.funds":          true,
	"cosmwasm.wasm.v1.MsgExecuteContract.funds":               true,
	"miniwasm.tokenfactory.v1.MsgMint.mint_to_address":        true,
	"cosmos.tx.v1beta1.Fee.amount":                            true,
}

// legacyCoins lists fields with (amino.encoding) = "legacy_coins": empty is [], not null.
var legacyCoins = map[protoreflect.FullName]bool{
	"cosmos.bank.v1beta1.MsgSend.amount":             true,
	"cosmos.bank.v1beta1.Input.coins":                true,
	"cosmos.bank.v1beta1.Output.coins":               true,
	"cosmwasm.wasm.v1.MsgInstantiateContract.funds":  true,
	"cosmwasm.wasm.v1.MsgInstantiateContract2.funds": true,
	"cosmwasm.wasm.v1.MsgExecuteContract.funds":      true,
	"cosmos.tx.v1beta1.Fee.amount":                   true,
}

// AminoName returns the registered amino name of a message type.
func AminoName(m proto.Message) (string, bool) {
	n, ok := aminoNames[m.ProtoReflect().Descriptor().FullName()]
	return n, ok
}

// TypeURLForAmino returns the proto type URL registered for an amino name.
func TypeURLForAmino(name string) (string, bool) {
	full, ok := aminoByName[name]
	if !ok {
		return "", false
	}
	return "/" + string(full), true
}

// MarshalAmino renders a registered message as {"type": amino name, "value": {...}}
// with sorted keys. An *anypb.Any is unpacked first.
func MarshalAmino(m proto.Message) ([]byte, error) {
	if a, ok := m.(*anypb.Any); ok {
		inner, err := UnpackAny(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrAmino, err)
		}
		if _, still := inner.(*anypb.Any); still {
			return nil, fmt.Errorf("%w: unknown type %s", ErrAmino, a.TypeUrl)
		}
		m = inner
	}
	name, ok := AminoName(m)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no registered amino name", ErrAmino, m.ProtoReflect().Descriptor().FullName())
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	writeString(&buf, name)
	buf.WriteString(`,"value":`)
	if err := aminoMessage(&buf, m.ProtoReflect()); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return sortJSON(buf.Bytes())
}

// MarshalAminoValue renders only the "value" part of MarshalAmino: what the router puts,
// as a JSON string, in cosmos_tx.msgs[].msg next to msg_type_url.
func MarshalAminoValue(m proto.Message) ([]byte, error) {
	b, err := MarshalAmino(m)
	if err != nil {
		return nil, err
	}
	var w struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAmino, err)
	}
	return w.Value, nil
}

// UnmarshalAmino parses amino JSON into the message registered under nameOrTypeURL (an
// amino name such as "cosmos-sdk/MsgSend" or a type URL such as
// "/cosmos.bank.v1beta1.MsgSend"). data may be the value object alone or the
// {"type","value"} wrapper. Unknown fields are an error.
func UnmarshalAmino(nameOrTypeURL string, data []byte) (proto.Message, error) {
	var full protoreflect.FullName
	if strings.HasPrefix(nameOrTypeURL, "/") {
		full = protoreflect.FullName(strings.TrimPrefix(nameOrTypeURL, "/"))
		if _, ok := aminoNames[full]; !ok {
			return nil, fmt.Errorf("%w: %s has no registered amino name", ErrAmino, nameOrTypeURL)
		}
	} else {
		var ok bool
		if full, ok = aminoByName[nameOrTypeURL]; !ok {
			return nil, fmt.Errorf("%w: unknown amino type %q", ErrAmino, nameOrTypeURL)
		}
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(full)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not linked: %w", ErrAmino, full, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAmino, err)
	}
	if len(obj) == 2 && obj["type"] != nil && obj["value"] != nil {
		var typ string
		if json.Unmarshal(obj["type"], &typ) == nil && typ == aminoNames[full] {
			data = obj["value"]
		}
	}
	m := mt.New()
	if err := aminoDecodeMessage(m, data); err != nil {
		return nil, err
	}
	return m.Interface(), nil
}

// UnmarshalAminoInto is UnmarshalAmino for a message of a known type: data (the value
// object or the {"type","value"} wrapper) is decoded into m.
func UnmarshalAminoInto(data []byte, m proto.Message) error {
	full := m.ProtoReflect().Descriptor().FullName()
	if name, ok := aminoNames[full]; ok {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("%w: %w", ErrAmino, err)
		}
		if len(obj) == 2 && obj["type"] != nil && obj["value"] != nil {
			var typ string
			if json.Unmarshal(obj["type"], &typ) == nil && typ == name {
				data = obj["value"]
			}
		}
	}
	proto.Reset(m)
	return aminoDecodeMessage(m.ProtoReflect(), data)
}

// AminoSignBytes is the SIGN_MODE_LEGACY_AMINO_JSON payload (the StdSignDoc): sorted,
// compact JSON of account_number, chain_id, fee{amount, gas[, payer][, granter]}, memo,
// msgs, sequence and, when non-zero, timeout_height.
func AminoSignBytes(chainID string, accountNumber, sequence uint64, body *txv1beta1.TxBody, fee *txv1beta1.Fee) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"account_number":"` + strconv.FormatUint(accountNumber, 10) + `","chain_id":`)
	writeString(&buf, chainID)
	buf.WriteString(`,"fee":{"amount":`)
	if err := aminoList(&buf, (&txv1beta1.Fee{}).ProtoReflect().Descriptor().Fields().ByName("amount"), fee.ProtoReflect().Get(fee.ProtoReflect().Descriptor().Fields().ByName("amount")).List()); err != nil {
		return nil, err
	}
	buf.WriteString(`,"gas":"` + strconv.FormatUint(fee.GetGasLimit(), 10) + `"`)
	if fee.GetPayer() != "" {
		buf.WriteString(`,"payer":`)
		writeString(&buf, fee.Payer)
	}
	if fee.GetGranter() != "" {
		buf.WriteString(`,"granter":`)
		writeString(&buf, fee.Granter)
	}
	buf.WriteString(`},"memo":`)
	writeString(&buf, body.GetMemo())
	buf.WriteString(`,"msgs":[`)
	for i, a := range body.GetMessages() {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := MarshalAmino(a)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteString(`],"sequence":"` + strconv.FormatUint(sequence, 10) + `"`)
	if body.GetTimeoutHeight() != 0 {
		buf.WriteString(`,"timeout_height":"` + strconv.FormatUint(body.TimeoutHeight, 10) + `"`)
	}
	buf.WriteByte('}')
	return sortJSON(buf.Bytes())
}

// sortJSON re-encodes with object keys sorted, as the SDK's sortJSON does (it also
// HTML-escapes, like encoding/json).
func sortJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrAmino, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: sort: %w", ErrAmino, err)
	}
	return out, nil
}

func aminoPresent(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && nonNullable[fd.FullName()] {
		return true
	}
	return m.Has(fd)
}

func aminoMessage(buf *bytes.Buffer, m protoreflect.Message) error {
	if m.Descriptor().FullName() == "google.protobuf.Any" {
		a, _ := m.Interface().(*anypb.Any)
		if a == nil {
			return fmt.Errorf("%w: dynamic Any not supported", ErrAmino)
		}
		b, err := MarshalAmino(a)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	buf.WriteByte('{')
	fields := m.Descriptor().Fields()
	first := true
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		full := fd.FullName()
		if !aminoPresent(m, fd) && !dontOmitEmpty[full] && !legacyCoins[full] {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, string(fd.Name()))
		buf.WriteByte(':')
		if err := aminoField(buf, m, fd); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func aminoField(buf *bytes.Buffer, m protoreflect.Message, fd protoreflect.FieldDescriptor) error {
	switch {
	case fd.IsList():
		return aminoList(buf, fd, m.Get(fd).List())
	case fd.IsMap():
		return fmt.Errorf("%w: maps are not supported (%s)", ErrAmino, fd.FullName())
	case fd.Kind() == protoreflect.MessageKind:
		return aminoMessage(buf, m.Get(fd).Message())
	}
	return aminoScalar(buf, fd, m.Get(fd))
}

func aminoList(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, l protoreflect.List) error {
	if l.Len() == 0 && !legacyCoins[fd.FullName()] {
		// x/tx writes an unset list kept by dont_omitempty as null.
		buf.WriteString("null")
		return nil
	}
	buf.WriteByte('[')
	for i := 0; i < l.Len(); i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		var err error
		if fd.Kind() == protoreflect.MessageKind {
			err = aminoMessage(buf, l.Get(i).Message())
		} else {
			err = aminoScalar(buf, fd, l.Get(i))
		}
		if err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

func aminoScalar(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
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
		if rawJSONFields[fd.FullName()] {
			if !json.Valid(b) {
				return fmt.Errorf("%w: %s is not valid JSON", ErrAmino, fd.FullName())
			}
			var c bytes.Buffer
			_ = json.Compact(&c, b)
			buf.Write(c.Bytes())
			return nil
		}
		if len(b) == 0 {
			// encoding/json renders a nil []byte as null, which is what x/tx emits for
			// an empty bytes field kept by dont_omitempty.
			buf.WriteString("null")
			return nil
		}
		buf.WriteString(`"` + base64.StdEncoding.EncodeToString(b) + `"`)
	case protoreflect.BoolKind:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.EnumKind:
		buf.WriteString(strconv.FormatInt(int64(v.Enum()), 10))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		buf.WriteString(`"` + strconv.FormatInt(v.Int(), 10) + `"`)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		buf.WriteString(`"` + strconv.FormatUint(v.Uint(), 10) + `"`)
	default:
		return fmt.Errorf("%w: unsupported field kind %v of %s", ErrAmino, fd.Kind(), fd.FullName())
	}
	return nil
}

func aminoDecodeMessage(m protoreflect.Message, data []byte) error {
	desc := m.Descriptor()
	if desc.FullName() == "google.protobuf.Any" {
		var w struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("%w: any: %w", ErrAmino, err)
		}
		inner, err := UnmarshalAmino(w.Type, w.Value)
		if err != nil {
			return err
		}
		a, err := PackAny(inner)
		if err != nil {
			return err
		}
		proto.Merge(m.Interface(), a)
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAmino, desc.FullName(), err)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := obj[k]
		fd := desc.Fields().ByName(protoreflect.Name(k))
		if fd == nil {
			return fmt.Errorf("%w: %s has no field %q", ErrAmino, desc.FullName(), k)
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			if fd.Kind() == protoreflect.MessageKind && !fd.IsList() && nonNullable[fd.FullName()] {
				m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
			}
			continue
		}
		switch {
		case fd.IsList():
			if rawJSONFields[fd.FullName()] {
				return fmt.Errorf("%w: unexpected list for %s", ErrAmino, fd.FullName())
			}
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrAmino, fd.FullName(), err)
			}
			l := m.Mutable(fd).List()
			for _, it := range items {
				if fd.Kind() == protoreflect.MessageKind {
					el := l.NewElement()
					if err := aminoDecodeMessage(el.Message(), it); err != nil {
						return err
					}
					l.Append(el)
					continue
				}
				v, err := aminoDecodeScalar(fd, it)
				if err != nil {
					return err
				}
				l.Append(v)
			}
		case fd.IsMap():
			return fmt.Errorf("%w: maps are not supported (%s)", ErrAmino, fd.FullName())
		case fd.Kind() == protoreflect.MessageKind:
			if err := aminoDecodeMessage(m.Mutable(fd).Message(), raw); err != nil {
				return err
			}
		default:
			v, err := aminoDecodeScalar(fd, raw)
			if err != nil {
				return err
			}
			m.Set(fd, v)
		}
	}
	return nil
}

func aminoDecodeScalar(fd protoreflect.FieldDescriptor, raw json.RawMessage) (protoreflect.Value, error) {
	bad := func(err error) (protoreflect.Value, error) {
		return protoreflect.Value{}, fmt.Errorf("%w: %s: %w", ErrAmino, fd.FullName(), err)
	}
	// number reads a JSON number or a quoted one (amino quotes 64-bit values; clients
	// such as Skip's emit some as bare numbers).
	number := func() (string, error) {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return s, nil
		}
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", err
		}
		return n.String(), nil
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad(err)
		}
		if decFields[fd.FullName()] {
			s = legacyDecWire(s)
		}
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BytesKind:
		if rawJSONFields[fd.FullName()] {
			var c bytes.Buffer
			if err := json.Compact(&c, raw); err != nil {
				return bad(err)
			}
			return protoreflect.ValueOfBytes(c.Bytes()), nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad(err)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfBytes(b), nil
	case protoreflect.BoolKind:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfBool(b), nil
	case protoreflect.EnumKind:
		var name string
		if json.Unmarshal(raw, &name) == nil {
			if ev := fd.Enum().Values().ByName(protoreflect.Name(name)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
		}
		s, err := number()
		if err != nil {
			return bad(err)
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		s, err := number()
		if err != nil {
			return bad(err)
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfInt32(int32(n)), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		s, err := number()
		if err != nil {
			return bad(err)
		}
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfUint32(uint32(n)), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		s, err := number()
		if err != nil {
			return bad(err)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfInt64(n), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		s, err := number()
		if err != nil {
			return bad(err)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfUint64(n), nil
	}
	return bad(fmt.Errorf("unsupported kind %v", fd.Kind()))
}

// legacyDecWire turns a decimal string back into the LegacyDec wire form (integer
// scaled by 10^18). Values that do not parse are kept as they are.
func legacyDecWire(s string) string {
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(d, ".")
	if intPart == "" && frac == "" || len(frac) > 18 || strings.Trim(intPart+frac, "0123456789") != "" {
		return s
	}
	out := strings.TrimLeft(intPart+frac+strings.Repeat("0", 18-len(frac)), "0")
	if out == "" {
		return "0"
	}
	if neg {
		out = "-" + out
	}
	return out
}
