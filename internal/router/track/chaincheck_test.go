package track

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/rollgate/rollgate/internal/testutil"
)

const (
	resetL1 = "initia-devnet-1"
	resetL2 = "minimove-devnet-1" // bridge 2's rollup
)

// resetNet is a tracker over an SQLite store following two fake chains, L1 and a rollup.
type resetNet struct {
	t      *testing.T
	st     *Store
	l1, l2 *fakeChain
	tr     *Tracker
	logs   *testutil.SyncBuffer
}

func newResetNet(t *testing.T, st *Store) *resetNet {
	n := &resetNet{t: t, st: st,
		l1: newFakeChain(t, resetL1, "l1"), l2: newFakeChain(t, resetL2, "l2-seed-1")}
	n.l1.grow(3)
	n.l2.grow(10)
	n.start()
	return n
}

// start runs a fresh tracker (a router restarted) on the store.
func (n *resetNet) start() {
	n.logs = &testutil.SyncBuffer{}
	n.tr = New(n.st, fakeRegistry(n.t, map[string]*fakeChain{resetL1: n.l1, resetL2: n.l2}), Config{Backfill: 100, Owner: "router-1", // a restart releases its leases (Run)
		Log: slog.New(slog.NewTextHandler(n.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
}

func (n *resetNet) step() {
	n.t.Helper()
	for range 2 {
		if err := n.tr.Step(context.Background()); err != nil {
			n.t.Fatal(err)
		}
	}
}

func (n *resetNet) status(hash string) StatusResponse {
	n.t.Helper()
	raw, err := n.tr.Status(context.Background(), resetL1, hash)
	if err != nil {
		n.t.Fatal(err)
	}
	var s StatusResponse
	if err := json.Unmarshal(raw, &s); err != nil {
		n.t.Fatal(err)
	}
	return s
}

// gaugeOf reads rollgate_track_chain_mismatch for chainID.
func gaugeOf(t *testing.T, tr *Tracker, chainID string) float64 {
	var m dto.Metric
	if err := tr.mismatch.WithLabelValues(chainID).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func (n *resetNet) reach(chainID string) ChainReach {
	n.t.Helper()
	if err := n.tr.Ready(context.Background()); err != nil {
		n.t.Fatal(err)
	}
	for _, r := range n.tr.Reachability() {
		if r.ChainID == chainID {
			return r
		}
	}
	n.t.Fatalf("%s not followed", chainID)
	return ChainReach{}
}

// TestChainResetNeverCompletes: an OPinit deposit is sent on L1 while the tracker follows the
// rollup to height 10; then the rollup's node changes. The deposit's finalization, which
// alone completes the hop, appears on the node in every case. On the same chain the transfer
// completes; on a reset chain (same chain id, another genesis) past the old height, on a node
// repointed at another network, on a reset chain that was behind and then passed the old
// height, and on a reset chain at exactly the old height found by a restarted tracker's start
// check, nothing of the new chain is stored and the hop never completes: the status stays
// pending with STATUS_ERROR_INDEXING naming CHAIN_MISMATCH, /readyz's chain says halted with
// both hashes, the gauge is 1, one ERROR line names both hashes and heights.
func TestChainResetNeverCompletes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(l2 *fakeChain) // what the rollup's node becomes (it served 10 blocks)
		behind  bool                // the new chain is first below the scanned height
		restart bool                // a new tracker takes over after the change
		halt    bool
		// where the mismatch is found: the node's block and the height whose hash differs
		height, storedHeight int64
		nodeChain            string
	}{
		{name: "same chain", change: func(*fakeChain) {}},
		{name: "reset past the old height", change: func(c *fakeChain) { c.replace(resetL2, "l2-seed-2", 15) },
			halt: true, height: 11, storedHeight: 10, nodeChain: resetL2},
		{name: "repointed at another network", change: func(c *fakeChain) { c.replace("othernet-1", "other", 15) },
			halt: true, height: 11, storedHeight: 10, nodeChain: "othernet-1"},
		{name: "reset, behind, then past the old height", change: func(c *fakeChain) { c.replace(resetL2, "l2-seed-2", 6) },
			behind: true, halt: true, height: 10, storedHeight: 10, nodeChain: resetL2},
		{name: "reset at the old height, restarted", change: func(c *fakeChain) { c.replace(resetL2, "l2-seed-2", 9) },
			restart: true, halt: true, height: 10, storedHeight: 10, nodeChain: resetL2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			// SQLite, and PostgreSQL for the case that halts past the old height.
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "track.db")
			if tc.name == "reset past the old height" {
				dsn = testutil.PostgresDSN(t)
			}
			n := newResetNet(t, openT(t, dsn))
			n.step()
			hash := n.l1.tx("deposit", depositInit("7"))
			if _, err := n.tr.Track(ctx, resetL1, hash); err != nil {
				t.Fatal(err)
			}
			n.step()
			if s := n.status(hash); s.State != StatePending || !eq(hopStates(s), []string{OPInitSent}) {
				t.Fatalf("sent: %s %v", s.State, hopStates(s))
			}
			storedHash := hashHex(n.l2.hash(10))
			tc.change(n.l2)
			nodeHash := hashHex(n.l2.hash(10))
			if tc.restart {
				n.start()
			}
			if tc.behind {
				n.step()
				r := n.reach(resetL2)
				if r.State != ChainBehind || r.Reason != ReasonUpstreamBehind || r.NodeHeight != 6 || r.ScannedHeight != 10 {
					t.Fatalf("behind: %+v", r)
				}
				n.l2.grow(3) // 9: still below
				n.step()
			}
			fin := n.l2.tx("finalize", depositFin("7"))
			n.step()
			n.l2.grow(2)
			n.step()

			s := n.status(hash)
			r := n.reach(resetL2)
			gauge := gaugeOf(t, n.tr, resetL2)
			errors := strings.Count(n.logs.String(), "level=ERROR")
			if !tc.halt {
				if s.State != StateCompletedSuccess || r.State != ChainScanning || r.Mismatch != nil || gauge != 0 || errors != 0 {
					t.Fatalf("same chain: %s %+v gauge %v, %d errors\n%s", s.State, r, gauge, errors, n.logs.String())
				}
				return
			}
			// Never completed, and says why.
			if s.State != StatePending || !eq(hopStates(s), []string{OPInitSent}) || s.Error == nil || s.Error.Type != StatusErrorIndexing ||
				!strings.Contains(s.Error.Message, ReasonChainMismatch) || s.Transfers[0].Error == nil {
				raw, _ := json.Marshal(s)
				t.Fatalf("status on a changed chain: %s", raw)
			}
			// Nothing of the new chain stored.
			if evs, err := n.st.TxEvents(ctx, resetL2, fin); err != nil || len(evs) != 0 {
				t.Fatalf("events of the new chain stored: %v %v", evs, err)
			}
			// /readyz and the gauge.
			m := r.Mismatch
			if r.State != ChainHalted || r.Reason != ReasonChainMismatch || m == nil || m.Height != tc.height || m.StoredHeight != tc.storedHeight ||
				m.StoredHash != storedHash || m.NodeHash != nodeHash || m.NodeChain != tc.nodeChain || m.StoredChain != resetL2 {
				t.Fatalf("readiness: %+v %+v (stored %s node %s)", r, m, storedHash, nodeHash)
			}
			if tc.nodeChain != resetL2 {
				// The header names another chain: the hashes differ as well, but the chain id is the reason shown.
				if !strings.Contains(m.Error(), "othernet-1") {
					t.Errorf("mismatch text %q", m.Error())
				}
			}
			if gauge != 1 {
				t.Errorf("gauge %v, want 1", gauge)
			}
			// One ERROR line, with both hashes and heights, however many passes follow.
			n.l2.grow(30)
			n.step()
			out := n.logs.String()
			if c := strings.Count(out, "level=ERROR"); c != 1 {
				t.Fatalf("%d ERROR lines, want 1:\n%s", c, out)
			}
			for _, want := range []string{"stored_hash=" + storedHash, "node_hash=" + nodeHash, "chain_id=" + resetL2} {
				if !strings.Contains(out, want) {
					t.Errorf("the ERROR line lacks %s:\n%s", want, out)
				}
			}
			if s := n.status(hash); s.State != StatePending {
				t.Fatalf("completed later: %s", s.State)
			}
			// Another replica (or a restart) sees the halt from the store, scans nothing of it.
			n.start()
			n.step()
			if r := n.reach(resetL2); r.State != ChainHalted || r.Mismatch == nil || r.Mismatch.NodeHash != nodeHash {
				t.Fatalf("after a restart: %+v", r)
			}
			if evs, _ := n.st.TxEvents(ctx, resetL2, fin); len(evs) != 0 {
				t.Fatalf("events of the new chain stored after a restart: %v", evs)
			}
		})
	}
}

// TestRebaseAfterMismatch: the operator's recovery. Store.Rebase forgets the halted chain's
// scan: the next tracker scans the new chain from Backfill below its tip, the chain is ready
// again and the gauge back at 0; the other chain's cursor is untouched.
func TestRebaseAfterMismatch(t *testing.T) {
	ctx := context.Background()
	n := newResetNet(t, openT(t, testutil.PostgresDSN(t)))
	n.step()
	n.l2.replace(resetL2, "l2-seed-2", 15)
	n.step()
	if r := n.reach(resetL2); r.State != ChainHalted {
		t.Fatalf("not halted: %+v", r)
	}
	l1Before, _, _ := n.st.LeaseCursor(ctx, resetL1, n.tr.Owner(), n.tr.cfg.Now(), 0, -1)
	if _, err := n.st.Rebase(ctx, resetL2); err != nil {
		t.Fatal(err)
	}
	if _, err := n.st.Rebase(ctx, "never-scanned-1"); err == nil {
		t.Fatal("rebase of a chain never scanned")
	}
	n.start()
	fin := n.l2.tx("finalize", depositFin("8"))
	n.step()
	if r := n.reach(resetL2); r.State != ChainScanning || r.Mismatch != nil {
		t.Fatalf("after the rebase: %+v", r)
	}
	if evs, err := n.st.TxEvents(ctx, resetL2, fin); err != nil || len(evs) != 1 {
		t.Fatalf("the new chain's events after the rebase: %v %v", evs, err)
	}
	if g := gaugeOf(t, n.tr, resetL2); g != 0 {
		t.Errorf("gauge %v", g)
	}
	l1After, _, _ := n.st.LeaseCursor(ctx, resetL1, n.tr.Owner(), n.tr.cfg.Now(), 0, -1)
	if l1After.Height != l1Before.Height || l1After.Hash != l1Before.Hash || l1After.Hash == "" {
		t.Errorf("L1's cursor changed: %+v → %+v", l1Before, l1After)
	}
}
