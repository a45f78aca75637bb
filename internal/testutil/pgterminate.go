package testutil

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// WithApplicationName returns dsn with its sessions named app in pg_stat_activity, so a
// PGTerminator can end exactly them.
func WithApplicationName(t testing.TB, dsn, app string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String()
}

// PGTerminator ends the PostgreSQL sessions of one application_name from a second
// connection (pg_terminate_backend, as an operator or a failover does), counting the sessions
// it ended and those it caught in the middle of a statement.
type PGTerminator struct {
	mu    sync.Mutex
	admin *pgx.Conn
	app   string
	// Kills is the number of sessions ended; MidStatement those that were running a statement.
	Kills, MidStatement atomic.Int64

	// BetweenAt, when set, limits Step's between-statements ends to these steps (every step
	// still gets its mid-statement end); nil: every step gets both.
	BetweenAt map[string]bool

	stepsMu sync.Mutex
	steps   map[string]int
}

// NewPGTerminator connects to dsn's database (closing with the test) to end app's sessions.
func NewPGTerminator(t testing.TB, dsn, app string) *PGTerminator {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, WithApplicationName(t, dsn, "rollgate-test-admin"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return &PGTerminator{admin: admin, app: app, steps: map[string]int{}}
}

// terminate ends app's sessions matching cond (SQL over pg_stat_activity) and returns how many.
func (k *PGTerminator) terminate(ctx context.Context, cond string) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var all, mid int
	err := k.admin.QueryRow(ctx, `WITH s AS (
  SELECT pid, state = 'active' AS active FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid() AND `+cond+`
), t AS (SELECT active, pg_terminate_backend(pid) AS ok FROM s)
SELECT count(*) FILTER (WHERE ok), count(*) FILTER (WHERE ok AND active) FROM t`, k.app).Scan(&all, &mid)
	k.Kills.Add(int64(all))
	k.MidStatement.Add(int64(mid))
	return all, err
}

// Now ends every session of app, whatever it is doing.
func (k *PGTerminator) Now(ctx context.Context) (int, error) { return k.terminate(ctx, "true") }

// During runs slow, which must keep one of app's sessions inside a long statement (e.g.
// SELECT pg_sleep(5)), and ends that session while the statement runs, again whenever a retry
// starts it anew, until slow returns; it returns slow's error (nil would mean the statement
// ran to its end uninterrupted).
func (k *PGTerminator) During(ctx context.Context, slow func() error) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			_, _ = k.terminate(ctx, "state = 'active' AND query LIKE 'SELECT pg_sleep%'")
		}
	}()
	err := slow()
	close(done)
	wg.Wait()
	return err
}

// Step is a store's open-step hook that makes every step weather twice: at its first visit the
// session is ended in the middle of a slowed statement on the step's own connection (the step
// fails), at its second the session is ended between statements (the step's next statement
// fails; see BetweenAt), from the third on the step goes through. Each end is retried by the opener, so the
// open reaches each step at least three times.
func (k *PGTerminator) Step(ctx context.Context, step string, exec func(string) error) error {
	k.stepsMu.Lock()
	k.steps[step]++
	n := k.steps[step]
	k.stepsMu.Unlock()
	switch n {
	case 1:
		return k.During(ctx, func() error { return exec("SELECT pg_sleep(5)") })
	case 2:
		if k.BetweenAt != nil && !k.BetweenAt[step] {
			return nil
		}
		_, err := k.Now(ctx)
		return err
	}
	return nil
}

// Steps is how many times each step was reached.
func (k *PGTerminator) Steps() map[string]int {
	k.stepsMu.Lock()
	defer k.stepsMu.Unlock()
	out := make(map[string]int, len(k.steps))
	for s, n := range k.steps {
		out[s] = n
	}
	return out
}
