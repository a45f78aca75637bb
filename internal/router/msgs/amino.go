package msgs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MarshalAmino renders a message as legacy amino JSON value (what the amino converters'
// fromAmino expects): proto field names in field-number order, empty scalars omitted, 64-bit
// integers as strings, bytes as base64, set sub-messages always present (so a zero IBC
// timeout height is "{}").
//
// Until internal/chain/txcodec lands this is the router's private codec; it works on the real
// generated protobuf types, so switching is a one-line change.
func MarshalAmino(m proto.Message) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeMessage(&buf, m.ProtoReflect()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeMessage(buf *bytes.Buffer, m protoreflect.Message) error {
	fields := m.Descriptor().Fields()
	buf.WriteByte('{')
	first := true
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		name, _ := json.Marshal(string(fd.Name()))
		buf.Write(name)
		buf.WriteByte(':')
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			buf.WriteByte('[')
			for j := 0; j < l.Len(); j++ {
				if j > 0 {
					buf.WriteByte(',')
				}
				if err := writeValue(buf, fd, l.Get(j)); err != nil {
					return err
				}
			}
			buf.WriteByte(']')
			continue
		}
		if fd.IsMap() {
			return fmt.Errorf("amino: map field %s not supported", fd.FullName())
		}
		if err := writeValue(buf, fd, v); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func writeValue(buf *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) error {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return writeMessage(buf, v.Message())
	case protoreflect.StringKind:
		b, _ := json.Marshal(v.String())
		buf.Write(b)
	case protoreflect.BytesKind:
		b, _ := json.Marshal(base64.StdEncoding.EncodeToString(v.Bytes()))
		buf.Write(b)
	case protoreflect.BoolKind:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		buf.WriteString(strconv.Quote(strconv.FormatInt(v.Int(), 10)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		buf.WriteString(strconv.Quote(strconv.FormatUint(v.Uint(), 10)))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case protoreflect.EnumKind:
		buf.WriteString(strconv.FormatInt(int64(v.Enum()), 10))
	default:
		return fmt.Errorf("amino: field %s of kind %s not supported", fd.FullName(), fd.Kind())
	}
	return nil
}

// UnmarshalAmino decodes an amino JSON value into m; unknown fields are errors.
func UnmarshalAmino(data []byte, m proto.Message) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("amino: %w", err)
	}
	return readMessage(raw, m.ProtoReflect())
}

func readMessage(raw map[string]json.RawMessage, m protoreflect.Message) error {
	fields := m.Descriptor().Fields()
	for k, v := range raw {
		fd := fields.ByName(protoreflect.Name(k))
		if fd == nil {
			return fmt.Errorf("amino: unknown field %q in %s", k, m.Descriptor().FullName())
		}
		if string(v) == "null" {
			continue
		}
		if fd.IsList() {
			var items []json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil {
				return fmt.Errorf("amino: %s: %w", k, err)
			}
			l := m.Mutable(fd).List()
			for _, it := range items {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					if err := readInto(it, e.Message()); err != nil {
						return err
					}
					l.Append(e)
					continue
				}
				val, err := readScalar(fd, it)
				if err != nil {
					return err
				}
				l.Append(val)
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			if err := readInto(v, m.Mutable(fd).Message()); err != nil {
				return err
			}
			continue
		}
		val, err := readScalar(fd, v)
		if err != nil {
			return err
		}
		m.Set(fd, val)
	}
	return nil
}

func readInto(v json.RawMessage, m protoreflect.Message) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil {
		return fmt.Errorf("amino: %s: %w", m.Descriptor().FullName(), err)
	}
	return readMessage(raw, m)
}

func readScalar(fd protoreflect.FieldDescriptor, v json.RawMessage) (protoreflect.Value, error) {
	bad := func(err error) (protoreflect.Value, error) {
		return protoreflect.Value{}, fmt.Errorf("amino: %s: %w", fd.Name(), err)
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfString(s), nil
	case protoreflect.BytesKind:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return bad(err)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfBytes(b), nil
	case protoreflect.BoolKind:
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return bad(err)
		}
		return protoreflect.ValueOfBool(b), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		n, err := strconv.ParseInt(unquote(v), 10, 64)
		if err != nil {
			return bad(err)
		}
		switch fd.Kind() {
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
			return protoreflect.ValueOfInt64(n), nil
		case protoreflect.EnumKind:
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(n)), nil
		}
		return protoreflect.ValueOfInt32(int32(n)), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		n, err := strconv.ParseUint(unquote(v), 10, 64)
		if err != nil {
			return bad(err)
		}
		if fd.Kind() == protoreflect.Uint32Kind || fd.Kind() == protoreflect.Fixed32Kind {
			return protoreflect.ValueOfUint32(uint32(n)), nil
		}
		return protoreflect.ValueOfUint64(n), nil
	}
	return bad(fmt.Errorf("kind %s not supported", fd.Kind()))
}

// unquote accepts both "123" and 123 for integers, as amino converters do.
func unquote(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
