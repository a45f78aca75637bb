package jsonx

import (
	gojson "github.com/goccy/go-json"
)

// Unmarshal is encoding/json's Unmarshal, faster: what ingestion decodes per block (block
// results, receipts, traces, REST answers) was a fifth of its CPU with the standard decoder.
// goccy/go-json keeps encoding/json's behaviour (struct tags, RawMessage, Unmarshaler, numbers
// into interfaces as float64, case-insensitive field names); the decoders' tests and the
// ingestion goldens hold it to that.
func Unmarshal(data []byte, v any) error {
	return gojson.Unmarshal(data, v)
}
