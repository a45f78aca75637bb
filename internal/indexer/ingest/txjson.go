package ingest

import (
	"encoding/json"
	"strconv"

	"github.com/rollgate/rollgate/internal/jsonx"
)

// appendAPITx appends json.Marshal(t)'s bytes to dst without reflection. Most of what a tx's
// JSON holds is plain: ASCII strings with nothing to escape and compact REST JSON with no
// HTML characters, which encoding/json copies as they are; those are written directly, and
// any other string or raw value goes through json.Marshal alone, so the bytes are the same in
// every case. encoding/json's reflection and its per-byte rescan of the raw tx were about a
// tenth of the indexer's CPU to the top of the busy capture.
func appendAPITx(dst []byte, t *apiTx) ([]byte, error) {
	var err error
	dst = append(dst, `{"txhash":`...)
	dst = jsonx.AppendString(dst, t.TxHash, true)
	dst = append(dst, `,"height":`...)
	dst = jsonx.AppendString(dst, t.Height, true)
	dst = append(dst, `,"codespace":`...)
	dst = jsonx.AppendString(dst, t.Codespace, true)
	dst = append(dst, `,"code":`...)
	dst = strconv.AppendUint(dst, uint64(t.Code), 10)
	dst = append(dst, `,"data":`...)
	dst = jsonx.AppendString(dst, t.Data, true)
	dst = append(dst, `,"raw_log":`...)
	dst = jsonx.AppendString(dst, t.RawLog, true)
	dst = append(dst, `,"logs":`...)
	if dst, err = appendRawJSON(dst, t.Logs); err != nil {
		return nil, err
	}
	dst = append(dst, `,"info":`...)
	dst = jsonx.AppendString(dst, t.Info, true)
	dst = append(dst, `,"gas_wanted":`...)
	dst = jsonx.AppendString(dst, t.GasWanted, true)
	dst = append(dst, `,"gas_used":`...)
	dst = jsonx.AppendString(dst, t.GasUsed, true)
	dst = append(dst, `,"tx":`...)
	if dst, err = appendRawJSON(dst, t.Tx); err != nil {
		return nil, err
	}
	dst = append(dst, `,"timestamp":`...)
	dst = jsonx.AppendString(dst, t.Timestamp, true)
	dst = append(dst, `,"events":`...)
	dst = appendEvents(dst, t.Events)
	return append(dst, '}'), nil
}

// eventsSize is about the length of events' JSON when nothing in them is escaped.
func eventsSize(events []Event) int {
	n := 2
	for _, ev := range events {
		n += 30 + len(ev.Type)
		for _, a := range ev.Attributes {
			n += 36 + len(a.Key) + len(a.Value)
		}
	}
	return n
}

// appendEvents appends json.Marshal(events)'s bytes.
func appendEvents(dst []byte, events []Event) []byte {
	if events == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, ev := range events {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":`...)
		dst = jsonx.AppendString(dst, ev.Type, true)
		if len(ev.Attributes) > 0 { // omitempty
			dst = append(dst, `,"attributes":[`...)
			for j, a := range ev.Attributes {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"key":`...)
				dst = jsonx.AppendString(dst, a.Key, true)
				dst = append(dst, `,"value":`...)
				dst = jsonx.AppendString(dst, a.Value, true)
				if a.Index {
					dst = append(dst, `,"index":true}`...)
				} else {
					dst = append(dst, `,"index":false}`...)
				}
			}
			dst = append(dst, ']')
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// rawKept marks the bytes after which encoding/json may not copy a json.RawMessage as it is:
// whitespace (which it removes), <, >, & (which it escapes) and the first byte of U+2028 and
// U+2029 (which it escapes).
var rawKept = func() (t [256]bool) {
	for c := range 256 {
		t[c] = true
	}
	t[' '], t['\t'], t['\n'], t['\r'] = false, false, false, false
	t['<'], t['>'], t['&'], t[0xE2] = false, false, false, false
	return t
}()

// appendRawJSON appends json.Marshal(raw)'s bytes: raw itself when it is valid JSON that
// compacting and HTML escaping leave unchanged, else what json.Marshal makes of it (or its
// error).
func appendRawJSON(dst []byte, raw json.RawMessage) ([]byte, error) {
	plain := len(raw) > 0
	for i := 0; plain && i < len(raw); i++ {
		plain = rawKept[raw[i]]
	}
	if plain && jsonx.Valid(raw) {
		return append(dst, raw...), nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendJSON appends json.Marshal(it)'s bytes (the strings as jsonx.AppendString writes them).
func (it *internalTxJSON) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"height":`...)
	dst = strconv.AppendInt(dst, it.Height, 10)
	dst = append(dst, `,"hash":`...)
	dst = jsonx.AppendString(dst, it.Hash, true)
	dst = append(dst, `,"parent_index":`...)
	dst = strconv.AppendInt(dst, int64(it.ParentIndex), 10)
	dst = append(dst, `,"index":`...)
	dst = strconv.AppendInt(dst, int64(it.Index), 10)
	for _, m := range [...]struct{ key, val string }{{`,"type":`, it.Type}, {`,"from":`, it.From}, {`,"to":`, it.To},
		{`,"input":`, it.Input}, {`,"output":`, it.Output}, {`,"value":`, it.Value}, {`,"gas":`, it.Gas}, {`,"gasUsed":`, it.GasUsed}} {
		dst = append(dst, m.key...)
		dst = jsonx.AppendString(dst, m.val, true)
	}
	return append(dst, '}')
}
