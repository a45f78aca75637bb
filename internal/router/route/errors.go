package route

import (
	"fmt"

	"github.com/rollgate/rollgate/internal/textclip"
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

// Invalidf is an Invalid error with a reason. The message quotes args clipped (textclip.Args).
func Invalidf(reason, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Reason: reason, Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

// Unknownf is an Unknown error with a reason. The message quotes args clipped (textclip.Args).
func Unknownf(reason, format string, args ...any) *Error {
	return &Error{Kind: Unknown, Reason: reason, Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

// WithInfo returns a copy of e carrying a hint.
func (e *Error) WithInfo(info string) *Error {
	c := *e
	c.Info = info
	return &c
}
