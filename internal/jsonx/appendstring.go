package jsonx

import (
	"bytes"
	"encoding/json"
)

// plainString marks the bytes encoding/json writes into a string as they are: printable
// ASCII but the quote and the backslash; with HTML escaping also not <, > and &.
var plainString = [2][256]bool{plainTable(false), plainTable(true)}

func plainTable(escapeHTML bool) (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = false, false
	if escapeHTML {
		t['<'], t['>'], t['&'] = false, false, false
	}
	return t
}

// AppendString appends the bytes encoding/json writes for s, with or without its HTML
// escaping. Hand-written answers (a stored tx, a block) call it for every string, and most
// are plain ASCII, so those are copied as they are; anything else (control characters,
// non-ASCII, where encoding/json replaces invalid UTF-8 and escapes U+2028/U+2029) goes
// through encoding/json itself.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	plain := &plainString[0]
	if escapeHTML {
		plain = &plainString[1]
	}
	for i := 0; i < len(s); i++ {
		if !plain[s[i]] {
			return appendEncodedString(dst, s, escapeHTML)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func appendEncodedString(dst []byte, s string, escapeHTML bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
