package testutil

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPGPair builds the pair and proves the standby streams: a row committed on the primary
// becomes readable on the standby, which refuses writes (it is in recovery).
func TestPGPair(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two PostgreSQL clusters")
	}
	start := time.Now()
	primary, standby := PGPair(t)
	t.Logf("primary :%d and standby :%d up in %v", primary.Port, standby.Port, time.Since(start).Round(time.Millisecond))
	primary.Exec("", "CREATE TABLE t (v int); INSERT INTO t VALUES (42)")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, standby.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var inRecovery bool
	if err := c.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil || !inRecovery {
		t.Fatalf("standby: pg_is_in_recovery = %v, %v; want true", inRecovery, err)
	}
	for {
		var v int
		err := c.QueryRow(ctx, "SELECT v FROM t").Scan(&v)
		if err == nil && v == 42 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the row never reached the standby: %v\n%s", err, standby.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1)"); err == nil {
		t.Fatal("the standby accepted a write")
	}
}
