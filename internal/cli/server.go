package cli

import (
	"context"
	"log/slog"
	"net"
)

// serverConfig is the part of a long-running command's settings that parseServer needs.
type serverConfig interface {
	register(f *flags)
	validate(env *Env) error
}

// parseServer reads a server command's flags (its own, then the logging ones, so both show
// in that order under -h), checks them and builds the logger.
func parseServer(env *Env, name string, args []string, cfg serverConfig) (*slog.Logger, error) {
	f := newFlags(env, name)
	var lg logging
	cfg.register(f)
	lg.register(f)
	f.config()
	if u, ok := cfg.(interface{ usage(env *Env, f *flags) }); ok {
		u.usage(env, f)
	}
	if err := f.parse(args); err != nil {
		return nil, err
	}
	if err := cfg.validate(env); err != nil {
		return nil, err
	}
	return lg.logger(env.Stderr)
}

// listenAddr is addr, or when empty :$PORT, or :fallback without PORT, the way hosting
// platforms hand a port to a process.
func listenAddr(env *Env, addr, fallback string) string {
	if addr != "" {
		return addr
	}
	port := env.Getenv("PORT")
	if port == "" {
		port = fallback
	}
	return ":" + port
}

// runServer listens on addr, lets start add the command's work to a fresh group, and waits for
// the group to end. started gets the listener's URL once all is up; stopped runs after.
func runServer(ctx context.Context, addr string, start func(*group, net.Listener) error, started func(url string), stopped func()) error {
	g := newGroup(ctx)
	ln, err := g.Listen(addr)
	if err != nil {
		return g.Abort(err)
	}
	if err := start(g, ln); err != nil {
		return g.Abort(err)
	}
	started("http://" + ln.Addr().String())
	err = g.Wait()
	stopped()
	return err
}
