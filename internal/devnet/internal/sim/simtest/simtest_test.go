package simtest

import (
	"errors"
	"math/big"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func TestKVIteratesInOrder(t *testing.T) {
	kv := KV{}
	for _, k := range []string{"b/2", "a/1", "b/1", "c"} {
		kv.Set(k, []byte(k))
	}
	var got []string
	kv.Iterate("b/", func(k string, _ []byte) bool { got = append(got, k); return true })
	if !slices.Equal(got, []string{"b/1", "b/2"}) {
		t.Errorf("prefix b/: %v", got)
	}
	got = nil
	kv.Iterate("", func(k string, _ []byte) bool { got = append(got, k); return len(got) < 2 })
	if !slices.Equal(got, []string{"a/1", "b/1"}) {
		t.Errorf("stop after two: %v", got)
	}
	v := []byte("x")
	kv.Set("k", v)
	v[0] = 'y'
	if b, _ := kv.Get("k"); string(b) != "x" {
		t.Error("Set keeps the caller's slice")
	}
}

type flavor struct{}

func (flavor) SendEvents(_ string, _, _ []byte, _ []sim.Coin) []sim.Event {
	return []sim.Event{{Type: "send"}}
}
func (flavor) MintEvents(string, []byte, []sim.Coin) []sim.Event { return []sim.Event{{Type: "mint"}} }
func (flavor) BurnEvents(string, []byte, []sim.Coin) []sim.Event { return []sim.Event{{Type: "burn"}} }

func TestBank(t *testing.T) {
	a, b := []byte{1}, []byte{2}
	coin := func(n int64) []sim.Coin { return []sim.Coin{{Denom: "u", Amount: big.NewInt(n)}} }
	f := NewChain("c-1", "init")
	f.Flavor = flavor{}
	if err := f.Mint(a, coin(10)); err != nil || len(f.Events) != 1 || f.Events[0].Type != "mint" {
		t.Fatalf("mint: %v, events %v", err, f.Events)
	}
	f.Events = nil
	if err := f.Send(a, b, coin(4)); err != nil {
		t.Fatal(err)
	}
	if f.Balance(a, "u").Int64() != 6 || f.Balance(b, "u").Int64() != 4 || len(f.Events) != 1 || f.Events[0].Type != "send" {
		t.Fatalf("after send: %s %s %v", f.Balance(a, "u"), f.Balance(b, "u"), f.Events)
	}
	var ce *sim.CodedError
	if err := f.Send(a, b, coin(7)); !errors.As(err, &ce) || ce.Codespace != "sdk" || ce.Code != 5 {
		t.Fatalf("overdraft: %v", err)
	}
	if err := f.Burn(b, coin(5)); !errors.As(err, &ce) || ce.Code != 5 {
		t.Fatalf("overburn: %v", err)
	}
	if f.Balance(a, "u").Int64() != 6 || f.Balance(b, "u").Int64() != 4 {
		t.Fatalf("a failed debit moved coins: %s %s", f.Balance(a, "u"), f.Balance(b, "u"))
	}
	if err := f.BurnQuiet(b, coin(4)); err != nil || f.Bal.Supply("u").Int64() != 6 {
		t.Fatalf("burn: %v, supply %s", err, f.Bal.Supply("u"))
	}
	f.Balance(a, "u").SetInt64(99)
	if f.Balance(a, "u").Int64() != 6 {
		t.Error("Balance returns the stored value, not a copy")
	}
}

func TestSnapshotsAndQueryAt(t *testing.T) {
	a := []byte{1}
	f := NewChain("c-1", "init")
	f.KV("m").Set("k", []byte("h1"))
	f.Bal.Set(a, "u", big.NewInt(1))
	f.Commit() // height 1
	kv, bal := f.Snapshot()
	f.KV("m").Set("k", []byte("h2"))
	f.Bal.Set(a, "u", big.NewInt(2))
	f.Restore(kv, bal)
	if v, _ := f.KV("m").Get("k"); string(v) != "h1" || f.Balance(a, "u").Int64() != 1 {
		t.Fatalf("restore: %s %s", v, f.Balance(a, "u"))
	}
	f.BlockHeight = 3 // height 2 has no block of its own
	f.KV("m").Set("k", []byte("h3"))
	f.Bal.Set(a, "u", big.NewInt(3))
	f.Commit()
	f.KV("m").Set("k", []byte("pending"))

	cases := []struct {
		header string
		h      int64
		want   string
		bal    int64
		err    uint32
	}{
		{"", 3, "h3", 3, 0},
		{"0", 3, "h3", 3, 0},
		{"1", 1, "h1", 1, 0},
		{"2", 2, "h1", 1, 0},
		{"4", 0, "", 0, 26},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		if c.header != "" {
			r.Header.Set("x-cosmos-block-height", c.header)
		}
		q, err := f.QueryAt(r)
		if c.err != 0 {
			var ce *sim.CodedError
			if !errors.As(err, &ce) || ce.Code != c.err {
				t.Errorf("height %s: %v", c.header, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("height %s: %v", c.header, err)
		}
		v, _ := q.Store("m").Get("k")
		if q.Height() != c.h || string(v) != c.want || q.Balance(a, "u").Int64() != c.bal || q.ChainID() != "c-1" {
			t.Errorf("height %s: h%d %s %s", c.header, q.Height(), v, q.Balance(a, "u"))
		}
	}
	if q, _ := f.QueryAt(nil); q.Height() != 3 {
		t.Errorf("nil request: height %d", q.Height())
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("x-cosmos-block-height", "x")
	if _, err := f.QueryAt(r); err == nil {
		t.Error("a height that is not a number passed")
	}
	g := NewChain("c-1", "init")
	g.BlockHeight = 5
	g.Commit()
	r.Header.Set("x-cosmos-block-height", "2")
	if q, err := g.QueryAt(r); err != nil || q.Height() != 2 || q.Balance(a, "u").Sign() != 0 {
		t.Errorf("before the first snapshot: %v %v", q, err)
	}
}
