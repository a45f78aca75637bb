package devnet

import (
	"context"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/engine"
)

func TestParseAccount(t *testing.T) {
	cases := []struct {
		name     string
		doc      string
		num, seq uint64
		err      bool
	}{
		{"base account in envelope", `{"account":{"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"init1x","pub_key":null,"account_number":"7","sequence":"3"}}`, 7, 3, false},
		{"bare base account", `{"@type":"/cosmos.auth.v1beta1.BaseAccount","account_number":"12","sequence":"0"}`, 12, 0, false},
		{"module account", `{"@type":"/cosmos.auth.v1beta1.ModuleAccount","base_account":{"account_number":"4","sequence":"9"},"name":"x"}`, 4, 9, false},
		{"not a number", `{"account_number":"x","sequence":"0"}`, 0, 0, true},
		{"not json", `nope`, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			num, seq, err := ParseAccount([]byte(c.doc))
			if (err != nil) != c.err || num != c.num || seq != c.seq {
				t.Fatalf("got %d %d %v", num, seq, err)
			}
		})
	}
}

func TestParseChains(t *testing.T) {
	specs, err := ParseChains("l1-1:l1, hub-1:cosmos,w-1:wasm")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 || specs[1].Prefix != "cosmos" || specs[1].withDefaults().FeeDenom != "uatom" || !specs[1].withDefaults().CosmosKeys ||
		specs[0].withDefaults().Prefix != "init" || specs[2].Kind != engine.KindWasm {
		t.Fatalf("%+v", specs)
	}
	if _, err := ParseChains("x:nope"); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

// TestKeys: the keys handed out are the funded ones, and their accounts read over REST
// start where a wallet expects; users differ from the traffic accounts.
func TestKeys(t *testing.T) {
	n := startManual(t, 3, nil)
	ctx := context.Background()
	for _, id := range n.ChainIDs() {
		u, err := n.UserKey(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		k, err := n.Key(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(u.Address()) == string(k.Address()) {
			t.Errorf("%s: user 0 is traffic account 0", id)
		}
		if _, seq, err := n.Account(ctx, id, n.Address(id, u)); err != nil || seq != 0 {
			t.Errorf("%s: user account seq %d err %v", id, seq, err)
		}
		if _, err := n.UserKey(id, 99); err == nil {
			t.Errorf("%s: user 99 handed out", id)
		}
	}
	u, _ := n.UserKey(hubID, 0)
	if a := n.Address(hubID, u); !strings.HasPrefix(a, "cosmos1") {
		t.Errorf("cosmoshub user address %s", a)
	}
}
