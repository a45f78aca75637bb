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

func marshal(n int, member func(i int) (string, any), escapeHTML bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		key, val := member(i)
		k, err := encode(key, escapeHTML)
		if err != nil {
			return nil, err
		}
		v, err := encode(val, escapeHTML)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
