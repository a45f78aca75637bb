package httpapi

// Requests a transport refuses before any route sees them: a request line or URI that does not
// parse (a malformed percent-escape, a control byte), a header block over maxHeaderBytes, a
// body over maxAdaptedBody, headers not received within readHeaderTimeout, a transfer coding
// neither server reads. Both transports answer them as every route answers an error: the JSON
// error body (internal/apierr), a 4xx, counted in the API's requests_total under the route
// "rejected", and logged at debug (a client's malformed request is not the server's failure,
// and anyone could otherwise fill the log).

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/textclip"
)

// maxHeaderBytes bounds a request's line and header block on both transports. It is above
// fasthttp's default of 4 KiB so that the documented limits are reachable: the indexer's msgs
// filter takes 100 type URLs, which with the longest ones (an ICA controller message, 81 bytes,
// its '/' escaped) is about 9 KiB of query, leaving room for a browser's usual headers. It is
// rollytics' own buffer too (RECV_BUFFER_SIZE, docs/contract/indexer-rollytics.md), so what it takes
// rollgate takes. Each connection holds a read buffer of this size under fasthttp, idle ones
// too: 1,000 idle connections took 18.9 MiB of heap, against 7.2 MiB with 4 KiB (measured in
// process, fasthttp v1.78.0).
const maxHeaderBytes = 16 << 10

// rejected is the metrics label of requests the transport refused before routing.
const rejected = "rejected"

// Rejecter is a handler that counts the requests its transport refuses before any route sees
// them (see reject.go). New's APIs are; a handler in front of one (the fleet of chains, an
// access log) passes the count on to the API whose metrics hold it.
type Rejecter interface {
	Rejected(status int)
}

// Rejected counts one request refused by the transport.
func (s *server) Rejected(status int) { s.rejected.count(status) }

// rejection is one refused request's answer.
type rejection struct {
	status int
	err    *apierr.Error
}

func newRejection(status int, detail, msg string) rejection {
	code := apierr.InvalidArgument
	switch status {
	case http.StatusRequestEntityTooLarge, http.StatusRequestHeaderFieldsTooLarge:
		code = apierr.ResourceExhausted
	case http.StatusRequestTimeout:
		code = apierr.DeadlineExceeded
	}
	return rejection{status: status, err: &apierr.Error{Code: code, Message: msg, Details: []string{detail}}}
}

// The answers to what the transports refuse.
var (
	rejectMalformed = func(msg string) rejection {
		return newRejection(http.StatusBadRequest, "MALFORMED_REQUEST", textclip.Clip(msg))
	}
	rejectHeaders = newRejection(http.StatusRequestHeaderFieldsTooLarge, "HEADERS_TOO_LARGE",
		"request line and headers exceed "+strconv.Itoa(maxHeaderBytes)+" bytes")
	rejectBody    = newRejection(http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE", "request body exceeds "+strconv.Itoa(maxAdaptedBody)+" bytes")
	rejectTimeout = newRejection(http.StatusRequestTimeout, "REQUEST_TIMEOUT", "request not received in time")
	// net/http answers a transfer coding it does not read with a 501 (RFC 9112 says it
	// should), and a request line of HTTP/2 or later with a 505; it is the client's request
	// that is wrong, and this API's 5xx mean the server failed.
	rejectTE = newRejection(http.StatusBadRequest, "MALFORMED_REQUEST", "unsupported Transfer-Encoding")
)

// rejects is where a transport reports what it refused: counted by h when h is a Rejecter
// (the count is otherwise lost: a handler that is none of New's has no metrics), logged at debug.
type rejects struct {
	h   http.Handler
	log *slog.Logger
}

func (rj rejects) note(transport string, rej rejection, remote string) {
	if c, ok := rj.h.(Rejecter); ok {
		c.Rejected(rej.status)
	}
	rj.log.Debug("request rejected", "transport", transport, "status", rej.status, "reason", rej.err.Details[0],
		"msg", rej.err.Message, "remote", remote)
}

// fasthttpError is fasthttp's ErrorHandler: what it could not read or parse, answered as JSON.
func (rj rejects) fasthttpError(c *fasthttp.RequestCtx, err error) {
	var rej rejection
	var small *fasthttp.ErrSmallBuffer
	var nerr net.Error
	switch {
	case errors.As(err, &small):
		rej = rejectHeaders
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		rej = rejectBody
	case errors.As(err, &nerr) && nerr.Timeout():
		rej = rejectTimeout
	default:
		rej = rejectMalformed("malformed request")
	}
	rj.writeFast(c, rej)
}

// writeFast answers c with rej under fasthttp.
func (rj rejects) writeFast(c *fasthttp.RequestCtx, rej rejection) {
	rj.note("fasthttp", rej, c.RemoteAddr().String())
	c.Response.Reset()
	c.SetStatusCode(rej.status)
	c.Response.Header.SetContentType("application/json")
	c.Response.Header.Set("X-Content-Type-Options", "nosniff")
	c.Response.Header.Set("Cache-Control", "no-store")
	c.Response.SetBody(append(ErrorJSON(rej.err), '\n'))
}

// listener wraps net/http's connections so that the plain-text errors net/http writes on a
// connection itself, before any handler (its conn.serve: a request it cannot read), go out as
// the JSON error instead.
func (rj rejects) listener(ln net.Listener) net.Listener {
	return &rejectListener{Listener: ln, rj: rj}
}

type rejectListener struct {
	net.Listener
	rj rejects
}

func (l *rejectListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &rejectConn{Conn: c, rj: l.rj}, nil
}

type rejectConn struct {
	net.Conn
	rj rejects
}

// CloseWrite half-closes the connection as net/http does after a 431 (its closeWriteAndWait),
// so the client reads the answer to its end before the connection goes.
func (c *rejectConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// netHTTPErrorHeaders are the headers of every error net/http writes on the connection itself
// (net/http's server.go, conn.serve); no handler's answer has them so, without a Date.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *rejectConn) Write(b []byte) (int, error) {
	// Every write of every answer passes here: anything but a 4xx or 5xx head is out at once.
	if len(b) < 13 || b[0] != 'H' || b[9] != '4' && b[9] != '5' || !bytes.HasPrefix(b, []byte("HTTP/1.")) {
		return c.Conn.Write(b)
	}
	rej, ok := netHTTPRejection(b)
	head := false
	if !ok {
		if rej, head, ok = netHTTPExpectationFailed(b); !ok {
			return c.Conn.Write(b)
		}
	}
	c.rj.note("net/http", rej, c.RemoteAddr().String())
	body := append(ErrorJSON(rej.err), '\n')
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(rej.status) + " " + http.StatusText(rej.status) + "\r\n")
	out.WriteString("Content-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	if !head {
		out.Write(body)
	}
	if _, err := c.Conn.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil // what net/http wrote, as far as it knows
}

// netHTTPRejection recognises one of net/http's own error responses, written whole in one
// write: "HTTP/1.1 <code> <text>" + netHTTPErrorHeaders + a one-line body.
func netHTTPRejection(b []byte) (rejection, bool) {
	if !bytes.HasPrefix(b, []byte("HTTP/1.1 4")) && !bytes.HasPrefix(b, []byte("HTTP/1.1 5")) ||
		!bytes.Contains(b, []byte(netHTTPErrorHeaders)) {
		return rejection{}, false
	}
	s := string(b)
	line, rest, ok := strings.Cut(s, netHTTPErrorHeaders)
	if !ok || strings.Contains(line, "\r\n") || strings.Contains(rest, "\r\n") || len(line) < 12 {
		return rejection{}, false
	}
	status, err := strconv.Atoi(line[9:12])
	if err != nil {
		return rejection{}, false
	}
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return rejectHeaders, true
	case http.StatusNotImplemented:
		return rejectTE, true
	case http.StatusHTTPVersionNotSupported:
		// A request line naming HTTP/2 or later over HTTP/1: the client's mistake, as
		// fasthttp answers it.
		return rejectMalformed("malformed request: unsupported protocol version"), true
	case http.StatusBadRequest:
		// net/http's text: "Bad Request" or "Bad Request: <why>" (a malformed Host header...).
		msg := "malformed request"
		if _, why, ok := strings.Cut(rest, ": "); ok {
			msg = "malformed request: " + why
		}
		return rejectMalformed(msg), true
	}
	if status >= 400 && status < 500 {
		r := newRejection(status, "MALFORMED_REQUEST", strings.ToLower(http.StatusText(status)))
		return r, true
	}
	return rejection{}, false
}

// uriError is url's parse error without the URI it quotes in full (the message clips it).
func uriError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// netHTTPExpectationFailed recognises net/http's answer to an Expect header other than
// 100-continue (its response.sendExpectationFailed): a 417 head without a body, written
// through the response's buffer (with a Date) but before any handler; no route answers a 417.
// head says it carried no Content-Length: the answer to a HEAD, which gets none either.
func netHTTPExpectationFailed(b []byte) (rej rejection, head, ok bool) {
	if !bytes.Contains(b[:min(len(b), 40)], []byte(" 417 ")) {
		return rejection{}, false, false
	}
	s := string(b)
	if !strings.HasPrefix(s, "HTTP/1.1 417 Expectation Failed\r\n") && !strings.HasPrefix(s, "HTTP/1.0 417 Expectation Failed\r\n") ||
		!strings.HasSuffix(s, "\r\n\r\n") || strings.Count(s, "\r\n\r\n") != 1 || strings.Contains(s, "\r\nContent-Type:") {
		return rejection{}, false, false
	}
	head = !strings.Contains(s, "\r\nContent-Length: 0\r\n")
	return newRejection(http.StatusExpectationFailed, "MALFORMED_REQUEST", "unsupported Expect header: only 100-continue is"), head, true
}
