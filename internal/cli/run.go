package cli

import (
	"context"
	"errors"
	"net"

	"golang.org/x/sync/errgroup"
)

// group runs actors until the first one returns; then the shared context is cancelled and
// every actor is expected to stop. Nothing calls os.Exit from a goroutine, so deferred
// cleanups (closing stores, removing files) always run. The group also owns the resources
// its actors use (listeners, stores, the devnet): they are closed once every actor has
// stopped, whether the group ran to the end or its setup failed half-way (Abort), so no
// error path leaves a component running or a port taken.
type group struct {
	g      *errgroup.Group
	ctx    context.Context
	cancel context.CancelFunc
	owned  []func() error
}

func newGroup(ctx context.Context) *group {
	ctx, cancel := context.WithCancel(ctx)
	g, gctx := errgroup.WithContext(ctx)
	return &group{g: g, ctx: gctx, cancel: cancel}
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

// Own hands a resource to the group: close runs after every actor has stopped, the last
// owned first (a store opened after a listener closes before it). Setup code calls it right
// after opening the resource, before the next step that can fail.
func (g *group) Own(close func() error) {
	g.owned = append(g.owned, close)
}

// Listen opens a TCP listener owned by the group.
func (g *group) Listen(addr string) (net.Listener, error) {
	ln, err := new(net.ListenConfig).Listen(g.ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	g.Own(ln.Close)
	return ln, nil
}

var errStopped = errors.New("a component stopped")

// Wait waits for every actor, then closes what the group owns; a shutdown caused by the
// parent context is not an error. The first error closing an owned resource is returned
// when the actors ended cleanly (a listener the server already closed does not count).
func (g *group) Wait() error {
	err := g.g.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, errStopped) && g.ctx.Err() != nil {
		err = nil
	}
	g.cancel()
	for i := len(g.owned) - 1; i >= 0; i-- {
		if cerr := g.owned[i](); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
			err = cerr
		}
	}
	g.owned = nil
	return err
}

// Abort ends a group whose setup failed: it stops the actors started so far, waits for them,
// closes what the group owns, and returns err.
func (g *group) Abort(err error) error {
	g.cancel()
	_ = g.Wait()
	return err
}
