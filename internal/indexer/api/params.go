package api

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// query parses the raw query string the way rollytics' HTTP stack does: pairs split on '&',
// '+' is a space, and a malformed percent escape is kept literally instead of dropping the
// pair (url.ParseQuery would drop it, so `pagination.key=%%%` would silently mean "no key"
// instead of rollytics' 400 on the key).
func query(rawQuery string) url.Values {
	v := url.Values{}
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		v[unescape(k)] = append(v[unescape(k)], unescape(val))
	}
	return v
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return strings.ReplaceAll(s, "+", " ")
}

// boolParam reads a boolean as rollytics does: strconv.ParseBool, and anything absent or
// unparsable is the default.
func boolParam(q url.Values, name string, def bool) bool {
	b, err := strconv.ParseBool(q.Get(name))
	if err != nil {
		return def
	}
	return b
}

// pagination parses pagination.*; the returned page has the native cursor kind of the
// endpoint only when the key carried a JSON cursor.
func pagination(q url.Values) (store.Page, error) {
	p := store.Page{Limit: store.DefaultPageLimit}
	// As rollytics, a value that is not an integer means the default. An integer out of range
	// is a 400, including one too large for int64 (rollytics silently used the default).
	if s := q.Get("pagination.limit"); isInteger(s) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > store.MaxPageLimit {
			return p, apierr.BadRequest("pagination.limit must be between 1 and %d", store.MaxPageLimit)
		}
		p.Limit = n
	}
	if s := q.Get("pagination.offset"); isInteger(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil && !strings.HasPrefix(s, "-") {
			return p, apierr.BadRequest("pagination.offset must be at most %d", int64(1<<63-1))
		}
		if err != nil || n < 0 {
			return p, apierr.BadRequest("pagination.offset cannot be negative")
		}
		p.Offset = n
	}
	p.Desc = boolParam(q, "pagination.reverse", true)
	p.CountTotal = boolParam(q, "pagination.count_total", true)
	if s := q.Get("pagination.key"); s != "" {
		c, off, err := parseKey(s)
		if err != nil {
			return p, err
		}
		if c.Kind != store.CursorNone {
			p.After = c
		} else {
			p.Offset = off
		}
	}
	return p, nil
}

// parseKey decodes a pagination key: standard base64 of a JSON cursor ({"sequence":N} or
// {"height":N}) or of a decimal offset. A space is read as '+', the usual casualty of an
// unescaped key in a query string.
func parseKey(s string) (store.Cursor, int64, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, " ", "+"))
	if err != nil {
		return store.Cursor{}, 0, apierr.BadRequest("pagination.key must be a valid base64 encoded string")
	}
	text := strings.TrimSpace(string(raw))
	if strings.HasPrefix(text, "{") {
		c, ok := parseCursor([]byte(text))
		if !ok {
			return store.Cursor{}, 0, apierr.BadRequest("invalid pagination.key format")
		}
		return c, 0, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 {
		return store.Cursor{}, 0, apierr.BadRequest("pagination.key must decode to a nonnegative integer")
	}
	return store.Cursor{}, n, nil
}

// parseCursor accepts an object with exactly one of "sequence" or "height", a non-negative
// integer. (Rollytics' composite {"height","token_id"} belongs to NFT lists, not served here.)
func parseCursor(b []byte) (store.Cursor, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil || dec.More() || len(m) != 1 {
		return store.Cursor{}, false
	}
	for k, v := range m {
		// A bare JSON integer only: no string, fraction or exponent.
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 {
			return store.Cursor{}, false
		}
		switch k {
		case "sequence":
			return store.Cursor{Kind: store.CursorSequence, Value: n}, true
		case "height":
			return store.Cursor{Kind: store.CursorHeight, Value: n}, true
		}
	}
	return store.Cursor{}, false
}

// encodeCursor renders the next_key of a row.
func encodeCursor(kind store.CursorKind, v int64) string {
	name := "sequence"
	if kind == store.CursorHeight {
		name = "height"
	}
	return base64.StdEncoding.EncodeToString([]byte(`{"` + name + `":` + strconv.FormatInt(v, 10) + `}`))
}

// heightParam parses a path height with rollytics' wording.
func heightParam(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if isInteger(s) {
			// Overflows int64: certainly past the chain, but not a malformed integer.
			if strings.HasPrefix(s, "-") {
				return 0, apierr.BadRequest("[INVALID_VALUE] invalid value for height: %s (must be a positive integer)", clip(s))
			}
			return 0, apierr.BadRequest("[INVALID_VALUE] invalid value for height: %s (must be at most %d)", clip(s), int64(1<<63-1))
		}
		return 0, apierr.BadRequest("[INVALID_VALUE] invalid value for height: %s (must be a valid integer)", clip(s))
	}
	if n < 1 {
		return 0, apierr.BadRequest("[INVALID_VALUE] invalid value for height: %s (must be a positive integer)", clip(s))
	}
	return n, nil
}

func isInteger(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// accountParam parses an account like rollytics: bech32 with the configured prefix (20 or 32
// bytes), else hex with or without 0x, leading zeros trimmed, padded to 20 or 32 bytes.
func accountParam(prefix, s string) ([]byte, error) {
	b, err := parseAccount(prefix, s)
	if err != nil {
		return nil, apierr.BadRequest("[INVALID_VALUE] invalid value for account: %s (invalid address format)", clip(s))
	}
	return b, nil
}

func parseAccount(prefix, s string) ([]byte, error) {
	if s == "" || len(s) > address.MaxBech32Length {
		return nil, address.ErrInvalid
	}
	// Bech32 is case-insensitive only when the whole string has one case; lower-casing first
	// also accepts an all-caps address, and hex does not care.
	return address.Parse(prefix, strings.ToLower(s))
}

// hashParam parses a tx hash: hex in any case, with or without 0x; an odd length gets a
// leading zero, as rollytics does.
func hashParam(s string) ([]byte, error) {
	h := s
	if len(h) >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
	}
	if h == "" || len(h) > 128 {
		return nil, apierr.BadRequest("invalid hash format")
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, apierr.BadRequest("invalid hash format")
	}
	return b, nil
}

// msgsParam collects msgs from repeated parameters and comma-separated lists, each an exact
// type URL (the store matches it with or without its leading '/'). It returns nil when no type
// is named (no filter).
func msgsParam(q url.Values) ([]string, error) {
	var out []string
	for _, v := range q["msgs"] {
		for _, m := range strings.Split(v, ",") {
			m = strings.TrimSpace(m)
			if m != "" {
				out = append(out, m)
			}
		}
	}
	if len(out) > maxMsgs {
		return nil, apierr.BadRequest("msgs may name at most %d message types", maxMsgs)
	}
	return out, nil
}

// maxMsgs bounds the msgs filter: no tx has more distinct types, and each costs a lookup.
const maxMsgs = 100
