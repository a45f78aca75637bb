package route

import (
	"fmt"
	"unicode/utf8"
)

// Kind says whose fault an Error is, for the API layer to choose a status.
type Kind int

// The kinds of request the route engine and the message builder refuse.
const (
	// Invalid: the request is malformed, or asks for what cannot be served (no route, an
	// unsupported operation).
	Invalid Kind = iota
	// Unknown: the request names a chain or asset the registry does not know.
	Unknown
)

// Error is a request the route engine or the message builder (router/msgs) refuses. It is a
// domain error: it says what is wrong and carries a stable machine reason (the Reason*
// constants) clients switch on; only the API layer turns it into an HTTP answer.
type Error struct {
	Kind    Kind
	Reason  string
	Message string
	// Info is a hint on what to do instead (optional).
	Info string
}

func (e *Error) Error() string { return e.Message }

// Invalidf is an Invalid error with a reason. The message quotes args clipped (clipArgs).
func Invalidf(reason, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Reason: reason, Message: fmt.Sprintf(format, clipArgs(args)...)}
}

// Unknownf is an Unknown error with a reason. The message quotes args clipped (clipArgs).
func Unknownf(reason, format string, args ...any) *Error {
	return &Error{Kind: Unknown, Reason: reason, Message: fmt.Sprintf(format, clipArgs(args)...)}
}

// maxEcho is the most of one argument a message quotes, as the API layer's errors do
// (internal/apierr's MaxEcho): a message says what was wrong with what the client sent, and a
// 70 kB chain id should not come back as a 70 kB message.
const maxEcho = 128

// clipArgs clips the text of every string, error or Stringer argument longer than maxEcho.
func clipArgs(args []any) []any {
	out := args
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
		if len(s) <= maxEcho {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]any(nil), args...)
		}
		n := maxEcho
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		out[i] = s[:n] + "…"
	}
	return out
}

// WithInfo returns a copy of e carrying a hint.
func (e *Error) WithInfo(info string) *Error {
	c := *e
	c.Info = info
	return &c
}
