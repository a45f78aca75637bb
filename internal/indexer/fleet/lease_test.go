package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// child is one writer process of the lease test.
type child struct {
	owner string
	url   string
	cmd   *exec.Cmd
}

func startChild(t *testing.T, owner, chains, dsn string, lease time.Duration) *child {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, _ := json.Marshal(childConfig{Chains: chains, DB: dsn, Owner: owner, Listen: addr, Lease: lease})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+string(cfg))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() && errb.Len() > 0 {
			t.Logf("%s stderr:\n%s", owner, errb.String())
		}
	})
	return &child{owner: owner, url: "http://" + addr, cmd: cmd}
}

// owners reads the lease table: chain → owner of a lease not expired.
func owners(t *testing.T, dsn string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT chain_id, owner FROM rollgate_fleet.leases WHERE lease_until > now()")
	if err != nil {
		return map[string]string{} // the table is not there yet
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var c, o string
		if err := rows.Scan(&c, &o); err != nil {
			t.Fatal(err)
		}
		out[c] = o
	}
	return out
}

func schemaDSN(t *testing.T, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func chainDump(t *testing.T, dsn, id string) []byte {
	t.Helper()
	return testutil.CanonicalDump(t, storeDump(t, schemaDSN(t, dsn, "chain_"+id)))
}

// storeDump is the dump of the chain store at dsn, read through a reader as the API reads it.
func storeDump(t *testing.T, dsn string) []byte {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReader(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var buf bytes.Buffer
	if err := db.Dump(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLeasesTwoWritersSIGKILL (must-show 3): two writer processes (this test binary re-run)
// share six chains (the three captured chains, each twice) over one PostgreSQL database by
// leases, while the chains advance. Each process writes its share; one is SIGKILLed; its
// chains are taken over by the other within the documented bound (Lease + Lease/3, plus a
// store open) and resume from their indexed height; at the end every chain's store dumps to
// the same rows as a clean run by a single writer.
func TestLeasesTwoWritersSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("two writer processes and a reference run: the full tier")
	}
	const lease = 3 * time.Second
	bound := lease + lease/3 + 3*time.Second // + the taker's store open on a loaded machine
	dsn := testutil.PostgresDSN(t)
	caps := capturedChains(t)
	var chains []*moving
	var specs []fleet.Chain
	for _, c := range caps {
		for _, suffix := range []string{"a", "b"} {
			m := serveMoving(t, c, c.vm+"_"+suffix, 5)
			chains = append(chains, m)
			specs = append(specs, m.spec())
		}
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, specs...)
	a := startChild(t, "writer-a", file, dsn, lease)
	b := startChild(t, "writer-b", file, dsn, lease)

	// Both take their share of the six chains.
	deadline := time.Now().Add(60 * time.Second)
	var own map[string]string
	for {
		own = owners(t, dsn)
		n := map[string]int{}
		for _, o := range own {
			n[o]++
		}
		if len(own) == 6 && n[a.owner] == 3 && n[b.owner] == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leases not divided 3/3 within 60 s: %v", own)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("leases: %v", own)
	heightAt := func(base, id string) int64 {
		st, _, body := get(t, base+"/"+id+"/status", "")
		var s struct{ Height int64 }
		if st != 200 || json.Unmarshal(body, &s) != nil {
			return -1
		}
		return s.Height
	}
	// Every chain is being written (by its owner; both processes serve all six).
	for _, c := range chains {
		for deadline := time.Now().Add(60 * time.Second); heightAt(b.url, c.id) <= 0; {
			if time.Now().After(deadline) {
				t.Fatalf("%s not written within 60 s", c.id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Only now the chains advance, a block every 120 ms, while the writers follow them: had
	// they advanced from the start, a slow start-up on a loaded machine would let a chain reach
	// its top before the kill, and the test would not see it resume.
	stop := make(chan struct{})
	go advance(stop, 120*time.Millisecond, chains...)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}()
	time.Sleep(600 * time.Millisecond)
	var killed []string
	for id, o := range owners(t, dsn) {
		if o == a.owner {
			killed = append(killed, id)
		}
	}
	sort.Strings(killed)
	at := map[string]int64{}
	for _, c := range chains {
		if contains(killed, c.id) {
			at[c.id] = heightAt(b.url, c.id)
			if c.tip.Load() >= c.top {
				t.Fatalf("%s is at its top before the kill: the test would not see it resume", c.id)
			}
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	t0 := time.Now()
	t.Logf("SIGKILLed %s holding %v at heights %v", a.owner, killed, at)
	// Its chains move on under the other writer within the bound.
	pending := map[string]bool{}
	for _, id := range killed {
		pending[id] = true
	}
	var worst time.Duration
	for len(pending) > 0 {
		if time.Since(t0) > bound {
			t.Fatalf("chains %v not resumed by %s within %s of the kill (owners %v)", pending, b.owner, bound, owners(t, dsn))
		}
		own := owners(t, dsn)
		for id := range pending {
			if own[id] == b.owner && heightAt(b.url, id) > at[id] {
				delete(pending, id)
				worst = time.Since(t0)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("the killed writer's %d chains resumed under %s within %s (bound %s)", len(killed), b.owner, worst.Round(10*time.Millisecond), bound)
	// All six reach their tops under the one writer left.
	close(stop)
	for _, c := range chains {
		c.tip.Store(c.top)
	}
	for _, c := range chains {
		waitHeight(t, b.url+"/"+c.id, c.top, 3*time.Minute)
	}
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("%s did not stop cleanly: %v", b.owner, err)
	}
	if own := owners(t, dsn); len(own) != 0 {
		t.Errorf("leases left after a clean stop: %v", own)
	}

	// The reference: one writer alone, from scratch, over the same chains at their tops.
	ref := testutil.PostgresDSN(t)
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: ref, Reload: -1, Ingest: fastIngest()})
	for _, c := range chains {
		waitHeight(t, srv.URL+"/"+c.id, c.top, 3*time.Minute)
	}
	for _, c := range chains {
		got, want := chainDump(t, dsn, c.id), chainDump(t, ref, c.id)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the two writers' store differs from a single writer's (%d vs %d bytes)", c.id, len(got), len(want))
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
