package sqldb

import (
	"context"
	"log/slog"
	"time"
)

// openRetryMin and openRetryMax bound the backoff between two attempts to open a database.
const (
	openRetryMin = 100 * time.Millisecond
	openRetryMax = 5 * time.Second
)

// RetryOpen runs f until it succeeds, returns a permanent error, or ctx ends. A transient
// failure (IsTransient: the server ended the session, is restarting or cannot be reached yet,
// SQLite is busy) is weather: logged at warn as "<what> failed; retrying" and tried again, at
// once (openRetryMin) after a lost session, with exponential backoff up to openRetryMax while
// the server cannot be reached. f must start from scratch each time (a fresh connection; the
// migrations run in one transaction, so a retry sees the schema as it was).
func RetryOpen(ctx context.Context, logger *slog.Logger, what string, f func() error) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	wait := openRetryMin
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil || !IsTransient(err) || ctx.Err() != nil {
			return err
		}
		next := wait
		if SessionLost(err) {
			// The server answered and ended the session: a fresh one is tried at once.
			next, wait = openRetryMin, openRetryMin
		} else {
			wait = min(2*wait, openRetryMax)
		}
		logger.Warn(what+" failed; retrying", "err", err, "attempt", attempt, "wait", next)
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// stepHook, when set (fault-injection tests: SetStepHook), runs at each step of opening a
// database with the connection the step uses; an error it returns fails the step.
var stepHook func(ctx context.Context, step string, c Conn) error

// SetStepHook makes h run at each step of Open, OpenSQL, Migrations.Apply and Migrations.Check
// ("connect", "schema check", "migrate: begin", "migrate: locked", "migration <file>",
// "migrate: commit"), with exec running a statement on the step's own connection (inside the
// migration's transaction for the migrate steps); an error h returns fails the step as the
// database would. It is for tests that end the session at a given step (nil h: none); it
// returns the previous hook's restore. Not safe to call while databases are being opened.
func SetStepHook(h func(ctx context.Context, step string, exec func(query string) error) error) (restore func()) {
	prev := stepHook
	if h == nil {
		stepHook = nil
	} else {
		stepHook = func(ctx context.Context, step string, c Conn) error {
			return h(ctx, step, func(q string) error {
				r, err := c.Query(ctx, q)
				if err != nil {
					return err
				}
				for r.Next() {
				}
				r.Close()
				return r.Err()
			})
		}
	}
	return func() { stepHook = prev }
}

func step(ctx context.Context, name string, c Conn) error {
	if stepHook == nil {
		return nil
	}
	return stepHook(ctx, name, c)
}
