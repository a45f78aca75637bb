// Package apierr is the one error type of rollgate's HTTP APIs and its mapping to HTTP.
//
// Handlers return *Error (or any error, which becomes an internal error); a single writer turns
// it into the JSON body `{"code": <gRPC code>, "message": "...", "details": [...]}` that the
// kvindexer and Skip-style clients already parse. The gRPC code and the HTTP status are tied
// together here and nowhere else. Internal causes are logged, never sent to the client.
package apierr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/rollgate/rollgate/internal/textclip"
)

// Code is a gRPC status code, as the clients expect it in the `code` field.
type Code int

// The codes rollgate answers with.
const (
	// Canceled: the client went away before the answer (HTTP 499, nginx's "client closed
	// request"); nobody reads the body, but metrics and logs must not call it a server error.
	Canceled         Code = 1
	InvalidArgument  Code = 3
	DeadlineExceeded Code = 4
	NotFound         Code = 5
	// ResourceExhausted: the only resource a request can exhaust here is the body limit, so
	// it answers 413 (grpc-gateway would say 429, which tells a client to retry the same body).
	ResourceExhausted Code = 8
	Internal          Code = 13
	Unimplemented     Code = 12
	Unavailable       Code = 14
)

// StatusClientClosedRequest is the HTTP status recorded for a client that disconnected.
const StatusClientClosedRequest = 499

// HTTPStatus is the HTTP status that goes with the code.
func (c Code) HTTPStatus() int {
	switch c {
	case InvalidArgument:
		return http.StatusBadRequest
	case NotFound:
		return http.StatusNotFound
	case Unimplemented:
		// Only routing answers with it: a known path asked with a method it does not serve,
		// as grpc-gateway reports a 405.
		return http.StatusMethodNotAllowed
	case Canceled:
		return StatusClientClosedRequest
	case DeadlineExceeded:
		return http.StatusGatewayTimeout
	case Unavailable:
		return http.StatusServiceUnavailable
	case ResourceExhausted:
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusInternalServerError
	}
}

// Error is an API error. Message is shown to the client; Cause is only logged.
type Error struct {
	Code    Code
	Message string
	// Details carries stable machine-readable reasons (e.g. "NO_ROUTE") for clients to switch on.
	Details []string
	// Info is a human hint some router clients display (optional).
	Info  string
	Cause error
	// Expected marks a 5xx that is the answer asked for, not a failure (an unready /readyz,
	// polled every few seconds by an orchestrator): it is not logged.
	Expected bool
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Cause)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// BadRequest is a client error (HTTP 400, code 3). Its message quotes args clipped (textclip.Args).
func BadRequest(format string, args ...any) *Error {
	return &Error{Code: InvalidArgument, Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

// NotFoundf is a missing resource (HTTP 404, code 5). Its message quotes args clipped (textclip.Args).
func NotFoundf(format string, args ...any) *Error {
	return &Error{Code: NotFound, Message: fmt.Sprintf(format, textclip.Args(args)...)}
}

// maxMessage bounds a whole message as written, for one built without textclip.Args (an echo a
// message forgot to clip comes back at most this long): well above any message's own text.
const maxMessage = 4 << 10

// TooLarge is a request body over the limit (HTTP 413, code 8).
func TooLarge(limit int64) *Error {
	return &Error{Code: ResourceExhausted, Message: fmt.Sprintf("request body exceeds %d bytes", limit)}
}

// MethodNotAllowed is a known path asked with a method it does not serve (HTTP 405, code 12).
func MethodNotAllowed(format string, args ...any) *Error {
	return &Error{Code: Unimplemented, Message: fmt.Sprintf(format, textclip.Args(args)...), Details: []string{"METHOD_NOT_ALLOWED"}}
}

// WithDetails returns a copy of e carrying machine-readable reasons.
func (e *Error) WithDetails(details ...string) *Error {
	c := *e
	c.Details = append(append([]string(nil), e.Details...), details...)
	return &c
}

// WithInfo returns a copy of e carrying a human hint.
func (e *Error) WithInfo(info string) *Error {
	c := *e
	c.Info = info
	return &c
}

// From classifies any error: an *Error is kept, a context deadline becomes DeadlineExceeded,
// a cancelled request becomes Canceled, anything else is Internal with a fixed message so
// that SQL text or stack traces never reach the client.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: DeadlineExceeded, Message: "request timed out", Cause: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: Canceled, Message: "request cancelled", Cause: err}
	}
	return &Error{Code: Internal, Message: "internal error", Cause: err}
}

type body struct {
	Code    Code     `json:"code"`
	Message string   `json:"message"`
	Details []string `json:"details"`
	Info    string   `json:"info,omitempty"`
}

// Write sends err as the JSON error body with its HTTP status. Server-side errors are logged
// with their cause.
func Write(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	e := From(err)
	status := e.Code.HTTPStatus()
	if status >= 500 && log != nil && !e.Expected {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
	}
	details := e.Details
	if details == nil {
		details = []string{}
	}
	b, _ := json.Marshal(body{Code: e.Code, Message: textclip.To(e.Message, maxMessage), Details: details, Info: e.Info})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
