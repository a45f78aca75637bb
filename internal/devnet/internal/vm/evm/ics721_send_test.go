package evm

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// quietChain is the fake engine with the balance hook the EVM executor asks for.
type quietChain struct{ *simtest.Chain }

func (quietChain) AdjustBalance([]byte, string, *big.Int) error { return nil }

// TestICS721Escrow: an ERC-721 contract's tokens go to an ICS-721 escrow account only from
// their owner, all or none, and come back on a refund.
func TestICS721Escrow(t *testing.T) {
	m := New(Config{})
	f := quietChain{simtest.NewChain("minievm-test-1", "init")}
	kv := f.Store(StoreName)
	nft := common.HexToAddress("0x00000000000000000000000000000000000E7721")
	a, b, escrow := common.HexToAddress("0xaa"), common.HexToAddress("0xbb"), common.HexToAddress("0xe5")
	putContract(kv, nft, contract{Kind: "erc721", Name: "Punks", Symbol: "P", Owner: key(a)})
	for id, owner := range map[int64]common.Address{1: a, 2: b} {
		raw, _ := json.Marshal(token{Owner: key(owner), URI: "https://p.invalid/" + big.NewInt(id).String()})
		kv.Set(tokenKey(nft, big.NewInt(id)), raw)
	}
	class := ICS721ClassPrefix + key(nft)
	owner := func(id int64) common.Address {
		tk, ok := getToken(f.Store(StoreName), nft, big.NewInt(id))
		if !ok {
			t.Fatalf("no token %d", id)
		}
		return common.HexToAddress(tk.Owner)
	}
	cases := []struct {
		name    string
		run     func() error
		wantErr bool
		owner1  common.Address
	}{
		{"with another owner's token", func() error {
			_, _, err := m.EscrowICS721(f, class, []string{"1", "2"}, a.Bytes(), escrow.Bytes())
			return err
		}, true, a},
		{"a token never minted", func() error {
			_, _, err := m.EscrowICS721(f, class, []string{"9"}, a.Bytes(), escrow.Bytes())
			return err
		}, true, a},
		{"not a token id", func() error {
			_, _, err := m.EscrowICS721(f, class, []string{"x"}, a.Bytes(), escrow.Bytes())
			return err
		}, true, a},
		{"no such contract", func() error {
			_, _, err := m.EscrowICS721(f, ICS721ClassPrefix+key(b), []string{"1"}, a.Bytes(), escrow.Bytes())
			return err
		}, true, a},
		{"refund of a token not in escrow", func() error { return m.RefundICS721(f, class, []string{"1"}, escrow.Bytes(), a.Bytes()) }, true, a},
		{"escrow by the owner", func() error {
			name, uris, err := m.EscrowICS721(f, class, []string{"1"}, a.Bytes(), escrow.Bytes())
			if err == nil && (name != "Punks" || len(uris) != 1 || uris[0] != "https://p.invalid/1") {
				t.Errorf("name %q uris %q", name, uris)
			}
			return err
		}, false, escrow},
		{"refund", func() error { return m.RefundICS721(f, class, []string{"1"}, escrow.Bytes(), a.Bytes()) }, false, a},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if got := owner(1); got != tc.owner1 {
				t.Fatalf("token 1 belongs to %s, want %s", got.Hex(), tc.owner1.Hex())
			}
			if got := owner(2); got != b {
				t.Fatalf("token 2 belongs to %s", got.Hex())
			}
		})
	}
}
