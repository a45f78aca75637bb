package move

import (
	"bytes"
	"testing"
)

// TestICS721Escrow: a native collection's NFTs go to an ICS-721 escrow account only from
// their owner, and come back from it on a refund.
func TestICS721Escrow(t *testing.T) {
	m, f := genesis(t)
	h := m.Handlers()[TypeMsgExecute]
	s1 := bech1(t, acc1)
	a1, a2 := AccAddr(acc1), AccAddr(acc2)
	if err := h(f, execMsg(s1, "simple_nft", "create_collection", nil, bcsStr("d"), bcsNone(), bcsStr("C"), bcsStr("https://c.invalid"),
		bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsDecimal("0"))); err != nil {
		t.Fatal(err)
	}
	for id, to := range map[string]Addr{"1": a1, "2": a2} {
		if err := h(f, execMsg(s1, "simple_nft", "mint", nil, bcsStr("C"), bcsStr("t"), bcsStr(id), bcsStr("https://c.invalid/"+id),
			bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsSomeAddr(to))); err != nil {
			t.Fatal(err)
		}
	}
	class := ICS721ClassPrefix + CollectionAddr(a1, "C").Hex()
	escrow := bytes.Repeat([]byte{0xe5}, 20)
	owner := func(id string) Addr {
		var o objectRec
		if !getJSON(f.Store(StoreName), keyObj(NftAddr(a1, "C", id)), &o) {
			t.Fatalf("no NFT %s", id)
		}
		return hexAddr(o.Owner)
	}
	cases := []struct {
		name    string
		run     func() error
		wantErr bool
		owner1  Addr // owner of token 1 afterwards
	}{
		{"another owner's token", func() error { _, _, _, err := m.EscrowICS721(f, class, []string{"1", "2"}, acc1, escrow); return err }, true, a1},
		{"a token never minted", func() error { _, _, _, err := m.EscrowICS721(f, class, []string{"9"}, acc1, escrow); return err }, true, a1},
		{"an unknown collection", func() error {
			_, _, _, err := m.EscrowICS721(f, ICS721ClassPrefix+CollectionAddr(a2, "C").Hex(), []string{"1"}, acc1, escrow)
			return err
		}, true, a1},
		{"a malformed class", func() error { _, _, _, err := m.EscrowICS721(f, "move/c", []string{"1"}, acc1, escrow); return err }, true, a1},
		{"refund of a token not in escrow", func() error { return m.RefundICS721(f, class, []string{"1"}, escrow, acc1) }, true, a1},
		{"escrow by the owner", func() error {
			name, uri, uris, err := m.EscrowICS721(f, class, []string{"1"}, acc1, escrow)
			if err == nil && (name != "C" || uri != "https://c.invalid" || len(uris) != 1 || uris[0] != "https://c.invalid/1") {
				t.Errorf("class %q %q, uris %q", name, uri, uris)
			}
			return err
		}, false, AccAddr(escrow)},
		{"refund", func() error { return m.RefundICS721(f, class, []string{"1"}, escrow, acc1) }, false, a1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if got := owner("1"); got != tc.owner1 {
				t.Fatalf("token 1 belongs to %s, want %s", got, tc.owner1)
			}
			if got := owner("2"); got != a2 {
				t.Fatalf("token 2 belongs to %s, want %s", got, a2)
			}
		})
	}
}
