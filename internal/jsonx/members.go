package jsonx

import "bytes"

// Members calls fn with each member of the JSON object b: the key's bytes between its quotes
// and the value's exact bytes (sub-slices of b, not copies), in order. It is for JSON-RPC
// envelopes whose result is megabytes: encoding/json would scan the whole body twice more to
// copy the result into a json.RawMessage before the result itself is decoded, which was a
// third of the indexer's JSON CPU. Members only finds the ends of values, it does not
// validate them: b must already be valid JSON (httpx's ExpectJSON checks every 2xx body).
// It reports false, having called fn for some members or none, when b is not an object or a
// key has an escape or a non-ASCII byte (where encoding/json's matching of keys is subtler
// than a byte comparison); the caller then decodes b with encoding/json as before.
func Members(b []byte, fn func(key, val []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := stringEnd(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		for _, c := range key {
			if c == '\\' || c >= 0x80 {
				return false
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return false
		}
		fn(key, b[i:vend:vend])
		next, more, ok := afterValue(b, vend, '}')
		if !more {
			return ok
		}
		i = next
	}
}

// Elements calls fn with the exact bytes of each element of the JSON array b, in order, as
// Members does for an object's members (b must be valid JSON); false when b is not an array.
func Elements(b []byte, fn func(val []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		vend := valueEnd(b, i)
		if vend < 0 {
			return false
		}
		fn(b[i:vend:vend])
		next, more, ok := afterValue(b, vend, ']')
		if !more {
			return ok
		}
		i = next
	}
}

// AppendMember appends the member k:v, as Members gives them (k the bytes between the key's
// quotes), to obj, an object written from its '{' on; the caller closes it. Decoders use it
// to pass the members they do not take apart on to encoding/json.
func AppendMember(obj, k, v []byte) []byte {
	if len(obj) > 1 {
		obj = append(obj, ',')
	}
	obj = append(obj, '"')
	obj = append(obj, k...)
	obj = append(obj, '"', ':')
	return append(obj, v...)
}

// afterValue steps over what follows a member or element ending at vend: a comma (more, with
// next at the following one) or the closing byte that must end b (ok when nothing but space
// comes after it); anything else is malformed.
func afterValue(b []byte, vend int, closing byte) (next int, more, ok bool) {
	i := skipSpace(b, vend)
	if i < len(b) && b[i] == ',' {
		return skipSpace(b, i+1), true, true
	}
	return 0, false, i < len(b) && b[i] == closing && skipSpace(b, i+1) == len(b)
}

// structural marks the bytes valueEnd stops at inside an object or array.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] == '"', or -1.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		// The quote ends the string unless an odd run of backslashes escapes it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd returns the index just past the value starting at b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			if !structural[b[j]] {
				continue
			}
			switch b[j] {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}

// RPCResult returns the result member of a valid JSON-RPC answer: the bytes encoding/json
// would copy into a json.RawMessage result field (nil when absent), without decoding the
// envelope. A block_results answer is megabytes, and the envelope's decode scanned it twice
// only to copy it. ok is false for an error answer, or for an envelope that a decode into
// {jsonrpc string; id, result json.RawMessage; error *T} might read differently (a key in
// another case, a jsonrpc that is not a string): the caller then decodes it as before.
func RPCResult(body []byte) (res []byte, ok bool) {
	_, res, ok = RPCAnswer(body)
	return res, ok
}

// RPCAnswer is RPCResult with the answer's id: the bytes a decode would copy into a
// json.RawMessage id field (nil when absent). It declines (ok false) where RPCResult does, and
// for an id key in another case. A batch's answers are cut with it, one element at a time.
func RPCAnswer(body []byte) (id, res []byte, ok bool) {
	other := false
	ok = Members(body, func(k, v []byte) {
		switch {
		case string(k) == "result":
			res = v
		case string(k) == "id":
			id = v
		case string(k) == "error":
			other = other || string(v) != "null"
		case bytes.EqualFold(k, []byte("result")), bytes.EqualFold(k, []byte("error")), bytes.EqualFold(k, []byte("id")):
			other = true
		case bytes.EqualFold(k, []byte("jsonrpc")):
			other = other || (v[0] != '"' && string(v) != "null")
		}
	})
	return id, res, ok && !other
}
