package track

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestOpenStoreDatabaseDrops: the tracker's PostgreSQL session is ended at every step of
// opening its store — connecting, the migration transaction's start, its lock, each migration,
// its commit — once in the middle of a slowed statement on the step's own connection and once
// between statements. OpenStoreLog rides every one out (never an error), applies each
// migration exactly once, and the store then works (the tracker's own loop under terminations
// is TestRunStoreFaults).
func TestOpenStoreDatabaseDrops(t *testing.T) {
	const app = "rollgate-track-test"
	dsn := testutil.WithApplicationName(t, testutil.PostgresDSN(t), app)
	k := testutil.NewPGTerminator(t, dsn, app)
	restore := sqldb.SetStepHook(k.Step)
	t.Cleanup(restore)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var logs strings.Builder
	st, err := OpenStoreLog(ctx, dsn, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("open: %v\n%s", err, logs.String())
	}
	defer st.Close()
	restore()
	steps := k.Steps()
	ms, err := schema.Load(sqldb.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"connect", "migrate: begin", "migrate: locked"}
	for _, m := range ms {
		want = append(want, "migration "+m.Name)
	}
	want = append(want, "migrate: commit")
	for _, s := range want {
		if steps[s] < 3 {
			t.Errorf("step %q reached %d times, want 3 (mid-statement, between statements, through)", s, steps[s])
		}
	}
	kills, mid := k.Kills.Load(), k.MidStatement.Load()
	t.Logf("%d sessions ended (%d mid-statement) over %d steps; %d retries logged", kills, mid, len(steps), strings.Count(logs.String(), "retrying"))
	if mid < int64(len(want)) || kills < 2*int64(len(want)) {
		t.Errorf("%d terminations, %d mid-statement; want >= %d and >= %d", kills, mid, 2*len(want), len(want))
	}
	var n int
	if err := st.db.QueryRowContext(ctx, "SELECT count(*) FROM track_schema_version").Scan(&n); err != nil || n != len(want)-4 {
		t.Fatalf("%d migrations recorded (%v), want %d", n, err, len(want)-4)
	}
	if _, err := st.Register(ctx, "a-1", "H1", "", time.Unix(1_700_000_000, 0), 0, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "a-1", "H1"); err != nil {
		t.Fatal(err)
	}
	var _ *sql.DB = st.db
}
