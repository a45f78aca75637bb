package cli

import (
	"context"
	"net/http"
	"net/http/pprof"

	"github.com/rollgate/rollgate/internal/httpapi"
)

// servePprof serves the runtime profiles on their own listener, opt-in: a soak run diffs heap
// profiles taken minutes apart to find what grows, and the profiles must never be reachable
// through the public API ports.
func servePprof(g *group, addr string) error {
	ln, err := g.Listen(addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	g.Go(func(ctx context.Context) error { return httpapi.Serve(ctx, ln, mux, nil) })
	return nil
}
