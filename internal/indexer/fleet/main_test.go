package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
)

// childEnv carries a child writer's configuration (TestLeases…): the test binary re-run as
// one fleet process.
const childEnv = "ROLLGATE_FLEET_CHILD"

type childConfig struct {
	Chains, DB, Owner, Listen string
	Lease                     time.Duration
	NoLeases                  bool // a lone fleet (the scale test)
	PoolConns                 int
}

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(runChild(v))
	}
	os.Exit(m.Run())
}

// runChild runs a fleet writer sharing the chains by leases until SIGTERM (or SIGKILL).
func runChild(v string) int {
	var c childConfig
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ing := fastIngest()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	if c.PoolConns == 0 {
		c.PoolConns = 2
	}
	f, err := fleet.New(fleet.Config{Chains: c.Chains, DB: c.DB, Reload: time.Second, Ingest: ing, Leases: !c.NoLeases, Owner: c.Owner,
		Lease: c.Lease, PoolConns: c.PoolConns, MaxConns: 16, Budget: 64, Registry: reg, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})), RestartMin: 20 * time.Millisecond, RestartMax: 200 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	err = f.Run(ctx)
	_ = srv.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
