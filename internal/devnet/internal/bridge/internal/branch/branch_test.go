package branch_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/internal/branch"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

func coins(d string, n int64) []sim.Coin { return []sim.Coin{{Denom: d, Amount: big.NewInt(n)}} }

func TestCommitReplaysInOrder(t *testing.T) {
	c, _ := simtest.Boot("c-1", "init", time.Unix(0, 0))
	a, b := []byte("aaaaaaaaaaaaaaaaaaaa"), []byte("bbbbbbbbbbbbbbbbbbbb")
	c.Fund(a, "u", 10)
	env := c.NewEnv()
	br := mustBranch(t, env)
	if err := br.Send(a, b, coins("u", 4)); err != nil {
		t.Fatal(err)
	}
	br.Emit(sim.Event{Type: "mine"})
	br.Store("m").Set("k", []byte("v"))
	if br.Balance(a, "u").Int64() != 6 || env.Balance(a, "u").Int64() != 10 {
		t.Fatal("branch balance not isolated")
	}
	if err := br.Send(a, b, coins("u", 7)); err == nil {
		t.Fatal("overdraft accepted")
	}
	if _, ok := env.Store("m").Get("k"); ok {
		t.Fatal("write leaked before commit")
	}
	if err := br.Commit(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"coin_spent", "coin_received", "transfer", "message", "mine"}, simtest.Types(env.Events)); diff != "" {
		t.Error(diff)
	}
	if v, _ := env.Store("m").Get("k"); string(v) != "v" || c.Balance(b, "u").Int64() != 4 {
		t.Error("commit lost state")
	}
}

func TestDiscardRenamed(t *testing.T) {
	c, _ := simtest.Boot("c-1", "init", time.Unix(0, 0))
	env := c.NewEnv()
	br := mustBranch(t, env)
	_ = br.Mint([]byte("aaaaaaaaaaaaaaaaaaaa"), coins("u", 1))
	br.Emit(sim.Event{Type: "fungible_token_packet", Attributes: []sim.Attribute{{Key: "success", Value: "false"}}})
	br.Store("m").Set("k", []byte{})
	br.DiscardRenamed("ibccallbackerror-")
	want := []sim.Event{{Type: "ibccallbackerror-fungible_token_packet", Attributes: []sim.Attribute{{Key: "ibccallbackerror-success", Value: "false"}}}}
	if diff := cmp.Diff(want, env.Events); diff != "" {
		t.Error(diff)
	}
	if _, ok := env.Store("m").Get("k"); ok || c.Balance([]byte("aaaaaaaaaaaaaaaaaaaa"), "u").Sign() != 0 {
		t.Error("discarded state leaked")
	}
}

func TestIterateMergesOverlay(t *testing.T) {
	c, _ := simtest.Boot("c-1", "init", time.Unix(0, 0))
	env := c.NewEnv()
	env.Store("m").Set("p/1", []byte("a"))
	env.Store("m").Set("p/2", []byte("b"))
	br := mustBranch(t, env)
	br.Store("m").Delete("p/1")
	br.Store("m").Set("p/3", []byte("c"))
	var got []string
	br.Store("m").Iterate("p/", func(k string, v []byte) bool { got = append(got, k+"="+string(v)); return true })
	if diff := cmp.Diff([]string{"p/2=b", "p/3=c"}, got); diff != "" {
		t.Error(diff)
	}
}

func mustBranch(t *testing.T, env sim.Env) *branch.Env {
	t.Helper()
	br, err := branch.New(env)
	if err != nil {
		t.Fatal(err)
	}
	return br
}

// A branch needs a sim.Host, and says so instead of panicking later.
func TestNewRefusesABareEnv(t *testing.T) {
	if _, err := branch.New(bareEnv{}); err == nil || !strings.Contains(err.Error(), "sim.Host") {
		t.Fatalf("bare env: %v", err)
	}
}

// bareEnv is a sim.Env without extras.
type bareEnv struct{ sim.Env }
