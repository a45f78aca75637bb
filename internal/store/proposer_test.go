package store

import (
	"fmt"
	"testing"
)

// TestProposerCache: a stored proposer text decodes to the same value as before, once; bad
// JSON is an error and is not kept; the cache starts over past its bound.
func TestProposerCache(t *testing.T) {
	c := proposerCache{m: map[string]*Proposer{}}
	cases := []struct {
		text    string
		want    *Proposer
		wantErr bool
	}{
		{`{"moniker":"val <0>","identity":"","operator_address":"initvaloper1x"}`, &Proposer{Moniker: "val <0>", OperatorAddress: "initvaloper1x"}, false},
		{`{"moniker":"b"}`, &Proposer{Moniker: "b"}, false},
		{`{"moniker":`, nil, true},
	}
	for _, tc := range cases {
		p, err := c.decode([]byte(tc.text))
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err %v", tc.text, err)
		}
		if tc.wantErr {
			if _, kept := c.m[tc.text]; kept {
				t.Errorf("%s: a failed decode was cached", tc.text)
			}
			continue
		}
		if *p != *tc.want {
			t.Errorf("%s: %+v, want %+v", tc.text, *p, *tc.want)
		}
		if again, _ := c.decode([]byte(tc.text)); again != p {
			t.Errorf("%s: decoded twice", tc.text)
		}
	}
	for i := range maxProposers + 1 {
		if _, err := c.decode(fmt.Appendf(nil, `{"moniker":"v%d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.m) > maxProposers {
		t.Errorf("%d proposers cached, bound %d", len(c.m), maxProposers)
	}
}
