package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// group runs actors until the first one returns; then the shared context is cancelled and
// every actor is expected to stop. Nothing calls os.Exit from a goroutine, so deferred
// cleanups (closing stores, removing files) always run.
type group struct {
	g   *errgroup.Group
	ctx context.Context
}

func newGroup(ctx context.Context) *group {
	g, gctx := errgroup.WithContext(ctx)
	return &group{g: g, ctx: gctx}
}

// Go adds an actor. An actor returning nil (other than on shutdown) still stops the group.
func (g *group) Go(fn func(ctx context.Context) error) {
	g.g.Go(func() error {
		err := fn(g.ctx)
		if err == nil && g.ctx.Err() == nil {
			return errStopped
		}
		return err
	})
}

var errStopped = errors.New("a component stopped")

// Wait waits for every actor; a shutdown caused by the parent context is not an error.
func (g *group) Wait() error {
	err := g.g.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, errStopped) && g.ctx.Err() != nil {
		return nil
	}
	return err
}

// serve runs an HTTP server on ln until ctx ends, then shuts it down gracefully.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return err
		}
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return ctx.Err()
	}
}
