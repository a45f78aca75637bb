package engine

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The generated types of internal/chain/protos register themselves in protoregistry.GlobalTypes
// when some package imports them. Until then (and for any message they lack) the engine falls
// back to a small local registry of dynamic types built from hand-written descriptors with the
// upstream package names, message names and field numbers, so the bytes are the real ones
// either way. Handlers must therefore read messages through protoreflect (see Field helpers),
// which works for generated and dynamic messages alike.

type fieldSpec struct {
	name     string
	num      int32
	kind     descriptorpb.FieldDescriptorProto_Type
	repeated bool
	typeName string // for messages: fully qualified with leading dot
}

type msgSpec struct {
	name   string
	fields []fieldSpec
}

type fileSpec struct {
	name string
	pkg  string
	deps []string
	msgs []msgSpec
}

const (
	tString = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tBytes  = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tUint64 = descriptorpb.FieldDescriptorProto_TYPE_UINT64
	tMsg    = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
)

func str(name string, num int32) fieldSpec { return fieldSpec{name: name, num: num, kind: tString} }
func rstr(name string, num int32) fieldSpec {
	return fieldSpec{name: name, num: num, kind: tString, repeated: true}
}
func rmsg(name string, num int32, typ string) fieldSpec {
	return fieldSpec{name: name, num: num, kind: tMsg, repeated: true, typeName: typ}
}

var localFiles = []fileSpec{
	{name: "rollgate/devnet/cosmos_coin.proto", pkg: "cosmos.base.v1beta1", msgs: []msgSpec{
		{"Coin", []fieldSpec{str("denom", 1), str("amount", 2)}},
	}},
	{name: "rollgate/devnet/cosmos_bank.proto", pkg: "cosmos.bank.v1beta1", deps: []string{"rollgate/devnet/cosmos_coin.proto"}, msgs: []msgSpec{
		{"MsgSend", []fieldSpec{str("from_address", 1), str("to_address", 2), rmsg("amount", 3, ".cosmos.base.v1beta1.Coin")}},
		{"MsgSendResponse", nil},
		{"Input", []fieldSpec{str("address", 1), rmsg("coins", 2, ".cosmos.base.v1beta1.Coin")}},
		{"Output", []fieldSpec{str("address", 1), rmsg("coins", 2, ".cosmos.base.v1beta1.Coin")}},
		{"MsgMultiSend", []fieldSpec{rmsg("inputs", 1, ".cosmos.bank.v1beta1.Input"), rmsg("outputs", 2, ".cosmos.bank.v1beta1.Output")}},
		{"MsgMultiSendResponse", nil},
	}},
	{name: "rollgate/devnet/cosmos_secp256k1.proto", pkg: "cosmos.crypto.secp256k1", msgs: []msgSpec{
		{"PubKey", []fieldSpec{{name: "key", num: 1, kind: tBytes}}},
	}},
	{name: "rollgate/devnet/initia_ethsecp256k1.proto", pkg: "initia.crypto.v1beta1.ethsecp256k1", msgs: []msgSpec{
		{"PubKey", []fieldSpec{{name: "key", num: 1, kind: tBytes}}},
	}},
	{name: "rollgate/devnet/minievm_tx.proto", pkg: "minievm.evm.v1", msgs: []msgSpec{
		{"AccessTuple", []fieldSpec{str("address", 1), rstr("storage_keys", 2)}},
		{"SetCodeAuthorization", []fieldSpec{str("chain_id", 1), str("address", 2), {name: "nonce", num: 3, kind: tUint64}, str("signature", 4)}},
		{"Log", []fieldSpec{str("address", 1), rstr("topics", 2), str("data", 3)}},
		{"MsgCall", []fieldSpec{str("sender", 1), str("contract_addr", 2), str("input", 3), str("value", 4),
			rmsg("access_list", 5, ".minievm.evm.v1.AccessTuple"), rmsg("auth_list", 6, ".minievm.evm.v1.SetCodeAuthorization")}},
		{"MsgCallResponse", []fieldSpec{str("result", 1), rmsg("logs", 2, ".minievm.evm.v1.Log")}},
		{"MsgCreate", []fieldSpec{str("sender", 1), str("code", 2), str("value", 3), rmsg("access_list", 4, ".minievm.evm.v1.AccessTuple")}},
		{"MsgCreateResponse", []fieldSpec{str("result", 1), str("contract_addr", 2), rmsg("logs", 3, ".minievm.evm.v1.Log")}},
	}},
}

var (
	localOnce  sync.Once
	localTypes *protoregistry.Types
	localErr   error
)

func buildLocal() (*protoregistry.Types, error) {
	localOnce.Do(func() {
		files := new(protoregistry.Files)
		types := new(protoregistry.Types)
		for _, fs := range localFiles {
			fdp := &descriptorpb.FileDescriptorProto{
				Name:       proto.String(fs.name),
				Package:    proto.String(fs.pkg),
				Dependency: fs.deps,
				Syntax:     proto.String("proto3"),
			}
			for _, ms := range fs.msgs {
				dp := &descriptorpb.DescriptorProto{Name: proto.String(ms.name)}
				for _, f := range ms.fields {
					label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
					if f.repeated {
						label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
					}
					fd := &descriptorpb.FieldDescriptorProto{
						Name: proto.String(f.name), Number: proto.Int32(f.num),
						Type: f.kind.Enum(), Label: label.Enum(), JsonName: proto.String(f.name),
					}
					if f.typeName != "" {
						fd.TypeName = proto.String(f.typeName)
					}
					dp.Field = append(dp.Field, fd)
				}
				fdp.MessageType = append(fdp.MessageType, dp)
			}
			fd, err := protodesc.NewFile(fdp, files)
			if err != nil {
				localErr = fmt.Errorf("build descriptor %s: %w", fs.name, err)
				return
			}
			if err := files.RegisterFile(fd); err != nil {
				localErr = fmt.Errorf("register %s: %w", fs.name, err)
				return
			}
			for i := 0; i < fd.Messages().Len(); i++ {
				if err := types.RegisterMessage(dynamicpb.NewMessageType(fd.Messages().Get(i))); err != nil {
					localErr = fmt.Errorf("register type: %w", err)
					return
				}
			}
		}
		localTypes = types
	})
	return localTypes, localErr
}

// Resolver finds message types by full name or type URL: the process-wide registry first
// (generated code), then the engine's local dynamic types.
type Resolver struct{}

// FindMessageByName implements protoregistry.MessageTypeResolver.
func (Resolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(name); err == nil {
		return mt, nil
	}
	lt, err := buildLocal()
	if err != nil {
		return nil, err
	}
	return lt.FindMessageByName(name)
}

// FindMessageByURL implements protoregistry.MessageTypeResolver.
func (r Resolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	name := url
	for i := len(url) - 1; i >= 0; i-- {
		if url[i] == '/' {
			name = url[i+1:]
			break
		}
	}
	return r.FindMessageByName(protoreflect.FullName(name))
}

// FindExtensionByName implements protoregistry.ExtensionTypeResolver (no extensions here).
func (Resolver) FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByName(field)
}

// FindExtensionByNumber implements protoregistry.ExtensionTypeResolver.
func (Resolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByNumber(message, field)
}

// NewMessage returns an empty message of the named type (e.g. "minievm.evm.v1.MsgCall").
func NewMessage(fullName string) (proto.Message, error) {
	mt, err := Resolver{}.FindMessageByName(protoreflect.FullName(fullName))
	if err != nil {
		return nil, fmt.Errorf("message type %s: %w", fullName, err)
	}
	return mt.New().Interface(), nil
}

// DecodeAny decodes a message by its type URL.
func DecodeAny(typeURL string, value []byte) (proto.Message, error) {
	mt, err := Resolver{}.FindMessageByURL(typeURL)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve type URL %s: %w", typeURL, err)
	}
	m := mt.New().Interface()
	if err := (proto.UnmarshalOptions{Resolver: Resolver{}}).Unmarshal(value, m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typeURL, err)
	}
	return m, nil
}

// TypeURL is "/" + the message's full name.
func TypeURL(m proto.Message) string { return "/" + string(m.ProtoReflect().Descriptor().FullName()) }

// GetString reads a string field by name ("" when absent).
func GetString(m proto.Message, field string) string {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
		return ""
	}
	return r.Get(fd).String()
}

// SetString sets a string field by name; unknown fields are ignored.
func SetString(m proto.Message, field, value string) {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
		return
	}
	r.Set(fd, protoreflect.ValueOfString(value))
}

// GetCoins reads a repeated cosmos.base.v1beta1.Coin field by name.
func GetCoins(m proto.Message, field string) ([]Coin, error) {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || !fd.IsList() || fd.Kind() != protoreflect.MessageKind {
		return nil, nil
	}
	l := r.Get(fd).List()
	out := make([]Coin, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		c := l.Get(i).Message().Interface()
		amt, err := parseAmount(GetString(c, "amount"))
		if err != nil {
			return nil, err
		}
		out = append(out, Coin{Denom: GetString(c, "denom"), Amount: amt})
	}
	return out, nil
}

// SetCoins sets a repeated Coin field by name.
func SetCoins(m proto.Message, field string, coins []Coin) error {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || !fd.IsList() || fd.Kind() != protoreflect.MessageKind {
		return fmt.Errorf("no coin list field %s", field)
	}
	l := r.Mutable(fd).List()
	for _, c := range coins {
		e := l.NewElement()
		cm := e.Message().Interface()
		SetString(cm, "denom", c.Denom)
		SetString(cm, "amount", c.Amount.String())
		l.Append(e)
	}
	return nil
}

// GetMessages reads a repeated message field (e.g. MsgMultiSend inputs).
func GetMessages(m proto.Message, field string) []proto.Message {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || !fd.IsList() || fd.Kind() != protoreflect.MessageKind {
		return nil
	}
	l := r.Get(fd).List()
	out := make([]proto.Message, 0, l.Len())
	for i := 0; i < l.Len(); i++ {
		out = append(out, l.Get(i).Message().Interface())
	}
	return out
}
