package httpapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Under fasthttp, fasthttp's adaptor holds a whole answer in memory before it writes it: a
// CSV export of 1,000,000 transfers (148 MB) took the process from 42 MB to 821 MB of RSS. A
// request for CSV (the exports, Streamed) is served here instead: the handler runs in its own
// goroutine and what it writes is piped onto the connection as it is written, so the export
// holds its buffers only.

// wantsExportFast reports a GET or HEAD asking for CSV: format=csv or an Accept naming text/csv.
func wantsExportFast(c *fasthttp.RequestCtx) bool {
	return (c.IsGet() || c.IsHead()) && (strings.EqualFold(string(c.QueryArgs().Peek("format")), "csv") ||
		wantsCSV(string(c.Request.Header.Peek("Accept"))))
}

// pipeResponse is the http.ResponseWriter of a piped answer: the status and headers are handed
// over once (ready), the body goes into the pipe.
type pipeResponse struct {
	h      http.Header
	status int
	body   *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
}

func (p *pipeResponse) Header() http.Header { return p.h }

func (p *pipeResponse) WriteHeader(status int) {
	p.once.Do(func() {
		p.status = status
		p.h = p.h.Clone() // the handler's later changes are not sent, as under net/http
		close(p.ready)
	})
}

func (p *pipeResponse) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.body.Write(b)
}

// Flush is a no-op: the pipe hands every write over at once.
func (p *pipeResponse) Flush() {}

// errAborted is what the body reader sees when the handler abandoned the answer midway.
var errAborted = errors.New("answer aborted by its handler")

// serveExportFast answers c by h with the body piped to the connection. A handler that
// aborts after the first byte (http.ErrAbortHandler, a Streamed Write that failed) makes the
// connection close without the body's last chunk, so the client sees a broken body, as under
// net/http.
func serveExportFast(c *fasthttp.RequestCtx, h http.Handler) {
	var req http.Request
	if err := fasthttpadaptor.ConvertRequest(c, &req, true); err != nil {
		c.Error("cannot read the request: "+err.Error(), http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	rw := &pipeResponse{h: http.Header{}, body: pw, ready: make(chan struct{})}
	r := req.WithContext(ctx)
	go func() {
		aborted := true
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler { //nolint:errorlint // net/http's sentinel, compared as it does
				rw.WriteHeader(http.StatusInternalServerError)
			}
			rw.WriteHeader(http.StatusOK)
			if aborted {
				pw.CloseWithError(errAborted)
			} else {
				pw.Close()
			}
		}()
		h.ServeHTTP(rw, r)
		aborted = false
	}()
	select {
	case <-rw.ready:
	case <-c.Done(): // the server shuts down
		cancel()
		<-rw.ready
	}
	for k, vs := range rw.h {
		for _, v := range vs {
			c.Response.Header.Add(k, v)
		}
	}
	c.SetStatusCode(rw.status)
	conn := c.Conn()
	c.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		buf := make([]byte, streamBuffer)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr == nil {
					werr = w.Flush()
					if werr != nil {
						err = werr
					}
				} else {
					err = werr
				}
			}
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				// The client went away, or the handler aborted: stop the handler and drop the
				// connection rather than end the body as if it were whole.
				pr.CloseWithError(err)
				cancel()
				_ = conn.Close()
				return
			}
		}
	})
}
