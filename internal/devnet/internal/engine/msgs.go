package engine

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	_ "github.com/rollgate/rollgate/internal/chain/txcodec" // links every generated message type
)

// Messages are the generated types of internal/chain/protos (txcodec links them all into
// protoregistry.GlobalTypes), so a decoded message is the concrete type its handler takes.

// DecodeAny decodes a message by its type URL.
func DecodeAny(typeURL string, value []byte) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(typeURL)
	if err != nil {
		return nil, fmt.Errorf("unable to resolve type URL %s: %w", typeURL, err)
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(value, m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", typeURL, err)
	}
	return m, nil
}

// TypeURL is "/" + the message's full name.
func TypeURL(m proto.Message) string { return "/" + string(proto.MessageName(m)) }

// stringField reads a string field by name ("" when the message has none).
func stringField(m proto.Message, field string) string {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(field))
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
		return ""
	}
	return r.Get(fd).String()
}

// CoinsOf parses generated coins.
func CoinsOf(coins []*basev1beta1.Coin) ([]Coin, error) {
	out := make([]Coin, 0, len(coins))
	for _, c := range coins {
		amt, err := parseAmount(c.GetAmount())
		if err != nil {
			return nil, err
		}
		out = append(out, Coin{Denom: c.GetDenom(), Amount: amt})
	}
	return out, nil
}
