// Package jsonx writes JSON objects whose member order is fixed. Real nodes answer in protobuf
// field order (CometBFT, the gRPC gateway, geth's structs), and the devnet's answers must be
// byte-identical to theirs, which a Go map cannot give and a struct per shape would bloat.
// Each caller keeps its own small member type and hands the members over by index.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Marshal writes an object of n members in order, escaping HTML characters as encoding/json
// does (CometBFT and geth answers); member(i) returns the i-th key and value.
func Marshal(n int, member func(i int) (string, any)) ([]byte, error) {
	return marshal(n, member, true)
}

// MarshalUnescaped is Marshal without HTML escaping, as the Cosmos gRPC gateway answers
// (`&`, `<`, `>` stay as they are).
func MarshalUnescaped(n int, member func(i int) (string, any)) ([]byte, error) {
	return marshal(n, member, false)
}

// Object is a value that Marshal writes in place. Writing a nested json.Marshaler through
// json.Marshal copies and re-validates its whole output once per level of nesting (a
// 1,600-tx block_results answer is ~7 levels of 10 MB); an Object's members are written
// straight into the parent's buffer instead, with the same bytes. JSONObject returns what its
// MarshalJSON hands to Marshal (escapeHTML true) or MarshalUnescaped (false).
type Object interface {
	JSONObject() (n int, member func(i int) (string, any), escapeHTML bool)
}

func marshal(n int, member func(i int) (string, any), escapeHTML bool) ([]byte, error) {
	var b bytes.Buffer
	if err := writeObject(&b, n, member, escapeHTML); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeObject(b *bytes.Buffer, n int, member func(i int) (string, any), escapeHTML bool) error {
	b.WriteByte('{')
	for i := range n {
		key, val := member(i)
		k, err := encode(key, escapeHTML)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		if err := writeValue(b, val, escapeHTML); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeValue writes v as encode would. Objects and []any (the shapes nest through them) are
// written in place; escaping is sticky as with json.Marshal, which escapes a nested
// Marshaler's output again when the parent escapes: a value is escaped when it or any
// enclosing object asks for it.
func writeValue(b *bytes.Buffer, v any, escapeHTML bool) error {
	switch x := v.(type) {
	case Object:
		n, member, esc := x.JSONObject()
		return writeObject(b, n, member, escapeHTML || esc)
	case []any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeValue(b, e, escapeHTML); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	out, err := encode(v, escapeHTML)
	if err != nil {
		return err
	}
	b.Write(out)
	return nil
}

// encode is json.Marshal, optionally without HTML escaping (which also applies to what
// nested json.Marshalers return).
func encode(v any, escapeHTML bool) ([]byte, error) {
	if escapeHTML {
		return json.Marshal(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
