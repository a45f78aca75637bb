package fleet

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Writers that share chains: several fleet processes over one PostgreSQL divide
// the chains by leases in the database, as the router's tracker replicas do, so each chain
// has exactly one writer while every process serves every chain's API.
//
// Each process renews its membership and its leases every Lease/3. It aims at its fair share,
// ceil(chains / live members): it takes chains whose lease is free or expired up to it and
// hands back what it holds beyond it (its pipeline stopped first). A process stops writing a
// chain by itself once Lease/2 has passed since the last renewal that held it, while another
// may take it only after Lease has passed: so two processes never write one chain, even when a
// process is cut off from the database. A process killed outright leaves its leases to expire:
// its chains resume elsewhere, from their indexed height, within Lease + Lease/3 (one renewal
// period of the taker), plus the taker's store open. Times are the database's (now()), so the
// processes' clocks need not agree.

const leaseSchema = `
CREATE SCHEMA IF NOT EXISTS rollgate_fleet;
CREATE TABLE IF NOT EXISTS rollgate_fleet.members (
  owner      TEXT PRIMARY KEY,          -- a fleet process
  seen_until TIMESTAMPTZ NOT NULL       -- it counts as live until then
);
CREATE TABLE IF NOT EXISTS rollgate_fleet.leases (
  chain_id    TEXT PRIMARY KEY,         -- a chain of the fleet
  owner       TEXT NOT NULL,            -- the one process writing it
  lease_until TIMESTAMPTZ NOT NULL      -- others may take it after this
);`

// leaser keeps this process's leases.
type leaser struct {
	pool  *pgxpool.Pool
	owner string
	lease time.Duration

	mu   sync.Mutex
	held map[string]time.Time // chain → local time until which this process may write it
}

func newLeaser(ctx context.Context, dsn, owner string, lease time.Duration) (*leaser, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("leases: %w", err)
	}
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("leases: %w", err)
	}
	// Two processes creating the schema at once: one waits for the other's lock.
	if _, err := pool.Exec(ctx, "SELECT pg_advisory_lock(7237953928125212774)"); err == nil {
		_, err = pool.Exec(ctx, leaseSchema)
		_, _ = pool.Exec(ctx, "SELECT pg_advisory_unlock(7237953928125212774)")
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("leases: %w", err)
		}
	}
	return &leaser{pool: pool, owner: owner, lease: lease, held: map[string]time.Time{}}, nil
}

// mayWrite says whether this process holds chain's lease now (with the Lease/2 margin).
func (l *leaser) mayWrite(chain string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.held[chain]
	return ok && time.Now().Before(until)
}

// holds says whether this process has chain's lease (whatever its margin).
func (l *leaser) holds(chain string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.held[chain]
	return ok
}

// tick renews membership and leases over chains and returns the chains this process should
// write and those it should hand back (after stopping their pipelines: release).
func (l *leaser) tick(ctx context.Context, chains []string) (keep, giveUp []string, err error) {
	start := time.Now()
	secs := l.lease.Seconds()
	if _, err := l.pool.Exec(ctx, `INSERT INTO rollgate_fleet.members (owner, seen_until) VALUES ($1, now() + make_interval(secs => $2))
		ON CONFLICT (owner) DO UPDATE SET seen_until = EXCLUDED.seen_until`, l.owner, secs); err != nil {
		return nil, nil, err
	}
	var members int
	if err := l.pool.QueryRow(ctx, "SELECT count(*) FROM rollgate_fleet.members WHERE seen_until > now()").Scan(&members); err != nil {
		return nil, nil, err
	}
	members = max(members, 1)
	share := (len(chains) + members - 1) / members
	// Renew what is held, then take free or expired leases up to the share, in a stable
	// order per process so two processes starting together do not chase the same chains.
	sort.Strings(chains)
	rot := hashOwner(l.owner) % max(len(chains), 1)
	order := append(append([]string(nil), chains[rot:]...), chains[:rot]...)
	l.mu.Lock()
	var held, free []string
	for _, c := range order {
		if _, ok := l.held[c]; ok {
			held = append(held, c)
		} else {
			free = append(free, c)
		}
	}
	l.mu.Unlock()
	take := func(c string) bool {
		var owner string
		err := l.pool.QueryRow(ctx, `INSERT INTO rollgate_fleet.leases (chain_id, owner, lease_until) VALUES ($1, $2, now() + make_interval(secs => $3))
			ON CONFLICT (chain_id) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
			WHERE leases.owner = EXCLUDED.owner OR leases.lease_until < now()
			RETURNING owner`, c, l.owner, secs).Scan(&owner)
		return err == nil && owner == l.owner
	}
	for _, c := range held {
		if take(c) {
			keep = append(keep, c)
		}
	}
	for _, c := range free {
		if len(keep) >= share {
			break
		}
		if take(c) {
			keep = append(keep, c)
		}
	}
	until := start.Add(l.lease / 2)
	l.mu.Lock()
	for c := range l.held {
		if !contains(keep, c) {
			delete(l.held, c)
		}
	}
	for _, c := range keep {
		l.held[c] = until
	}
	l.mu.Unlock()
	if len(keep) > share {
		giveUp = keep[share:]
		keep = keep[:share]
	}
	return keep, giveUp, nil
}

// release hands chain's lease back at once (its pipeline has stopped).
func (l *leaser) release(ctx context.Context, chain string) {
	l.mu.Lock()
	delete(l.held, chain)
	l.mu.Unlock()
	_, _ = l.pool.Exec(ctx, "DELETE FROM rollgate_fleet.leases WHERE chain_id = $1 AND owner = $2", chain, l.owner)
}

// leave hands back every lease and the membership (a clean shutdown: others take over at once).
func (l *leaser) leave(ctx context.Context) {
	_, _ = l.pool.Exec(ctx, "DELETE FROM rollgate_fleet.leases WHERE owner = $1", l.owner)
	_, _ = l.pool.Exec(ctx, "DELETE FROM rollgate_fleet.members WHERE owner = $1", l.owner)
	l.pool.Close()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func hashOwner(s string) int {
	h := 0
	for i := 0; i < len(s); i++ {
		h = (h*31 + int(s[i])) & 0x7fffffff
	}
	return h
}
