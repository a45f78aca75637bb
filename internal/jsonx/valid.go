package jsonx

// maxDepth is encoding/json's nesting limit, which Valid keeps so that both accept the same
// inputs.
const maxDepth = 10000

// stringSpecial marks the bytes a string's scan stops at: its end, an escape, a control byte.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Valid reports whether b is one JSON value, exactly as json.Valid does (the same grammar,
// bytes of 0x80 and above taken as they are, the same nesting limit), at several times its
// speed: json.Valid runs encoding/json's scanner, a call through a function value per byte, and
// httpx validates every 2xx answer the indexer reads (a block_results answer is megabytes).
func Valid(b []byte) bool {
	var buf [64]byte
	stack := buf[:0] // '{' or '[' per open container
	i := skipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) == maxDepth {
				return false
			}
			stack = append(stack, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = objectKey(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = validStringEnd(b, i); i < 0 {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = numberEnd(b, i); i < 0 {
				return false
			}
		case c == 't':
			if !hasLiteral(b, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !hasLiteral(b, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !hasLiteral(b, i, "null") {
				return false
			}
			i += 4
		default:
			return false
		}
		// A value ended before b[i]: close containers until one continues.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i = objectKey(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// objectKey checks a member's key and colon at b[i] and returns where its value starts, or -1.
func objectKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = validStringEnd(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// validStringEnd checks the string at b[i] == '"' and returns the index just past it, or -1.
func validStringEnd(b []byte, i int) int {
	i++
	for {
		for i < len(b) && !stringSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 {
					return -1
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default: // a control byte
			return -1
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// numberEnd checks the number at b[i] and returns the index just past it, or -1.
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
