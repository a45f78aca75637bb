package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// appendBlockJSON appends a block as the API serves it: the bytes encoding/json gives for
// rollytics' block object (without HTML escaping, as httpapi encodes), written directly.
// Through reflection, with the hash, numbers and time formatted into strings first, a block
// list cost about 14 us of CPU per block (see docs/performance.md); the blocks are the
// one list whose rows are not stored as JSON. TestBlockJSON holds it to encoding/json.
func appendBlockJSON(b []byte, blk *store.Block) []byte {
	b = append(b, `{"chain_id":`...)
	b = jsonx.AppendString(b, blk.ChainID, false)
	b = append(b, `,"height":"`...)
	b = strconv.AppendInt(b, blk.Height, 10)
	b = append(b, `","hash":"`...)
	b = appendUpperHex(b, blk.Hash)
	b = append(b, `","block_time":"`...)
	b = strconv.AppendInt(b, blk.BlockTimeMs, 10)
	b = append(b, `","timestamp":"`...)
	b = blk.Time.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, `","gas_used":"`...)
	b = strconv.AppendInt(b, blk.GasUsed, 10)
	b = append(b, `","gas_wanted":"`...)
	b = strconv.AppendInt(b, blk.GasWanted, 10)
	b = append(b, `","tx_count":"`...)
	b = strconv.AppendInt(b, int64(blk.TxCount), 10)
	b = append(b, `","total_fee":`...)
	b = appendRawJSON(b, blk.TotalFee)
	b = append(b, `,"proposer":`...)
	if p := blk.Proposer; p == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"moniker":`...)
		b = jsonx.AppendString(b, p.Moniker, false)
		b = append(b, `,"identity":`...)
		b = jsonx.AppendString(b, p.Identity, false)
		b = append(b, `,"operator_address":`...)
		b = jsonx.AppendString(b, p.OperatorAddress, false)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendRawJSON appends stored JSON as encoding/json writes a json.RawMessage: "null" when
// empty, compacted otherwise (stored JSON is written compact, so it is copied as it is unless
// it holds whitespace).
func appendRawJSON(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	if bytes.ContainsAny(raw, " \t\r\n") {
		return appendEncoded(b, raw)
	}
	return append(b, raw...)
}

// appendEncoded appends what encoding/json writes for v, without HTML escaping (an encoding
// error cannot happen for a string or for stored JSON, which the store wrote valid; should
// stored JSON be invalid, it is written as null rather than as broken JSON).
func appendEncoded(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func appendUpperHex(b []byte, src []byte) []byte {
	const digits = "0123456789ABCDEF"
	for _, c := range src {
		b = append(b, digits[c>>4], digits[c&0x0f])
	}
	return b
}
