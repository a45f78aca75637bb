// Package textclip keeps the client input an error message quotes short: a message says what
// was wrong with what the client sent, and a 70 kB chain id should not come back as a 70 kB
// message. The API layer's errors (internal/apierr) and the router's domain errors (route's
// errors, the bridges' refusals) both clip through it; it imports nothing of the project, so
// the rule that keeps apierr out of the domain packages holds.
package textclip

import (
	"fmt"
	"unicode/utf8"
)

// MaxEcho is the most of one piece of client input a message quotes, in bytes.
const MaxEcho = 128

// Clip keeps echoed input short: s cut to MaxEcho bytes (on a character boundary) and "…".
func Clip(s string) string { return To(s, MaxEcho) }

// To cuts s to at most n bytes, on a character boundary, and marks the cut with "…".
func To(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Args clips the text of every string, error or Stringer argument longer than MaxEcho, for a
// message formatted from them: whatever of the client's input they carry comes back short.
// args itself is returned when nothing is clipped, a copy otherwise.
func Args(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		default:
			continue
		}
		if len(s) <= MaxEcho {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = Clip(s)
	}
	if out == nil {
		return args
	}
	return out
}
