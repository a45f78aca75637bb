package move

import (
	"errors"
	"strings"
	"testing"

	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func bech1(t *testing.T, b []byte) string {
	t.Helper()
	s := bech("init", b)
	if s == "" {
		t.Fatal("bech32")
	}
	return s
}

func execMsg(sender, module, fn string, typeArgs []string, args ...[]byte) *movev1.MsgExecute {
	return &movev1.MsgExecute{Sender: sender, ModuleAddress: "0x1", ModuleName: module, FunctionName: fn, TypeArgs: typeArgs, Args: args}
}

// Behaviour outside the fixture's traffic: aborts and their locations, JSON arguments,
// values that JSON encoders like to escape.
func TestEntryFunctionSemantics(t *testing.T) {
	m, f := genesis(t)
	h := m.Handlers()[TypeMsgExecute]
	hj := m.Handlers()[TypeMsgExecuteJSON]
	s1, s2 := bech1(t, acc1), bech1(t, acc2)
	a1, a2 := AccAddr(acc1), AccAddr(acc2)
	create := execMsg(s1, "simple_nft", "create_collection", nil, bcsStr("d"), bcsSomeU64(1), bcsStr("C&C"), bcsStr("https://x.invalid/?a=1&b=<2>"),
		bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsBool(false), bcsDecimal("0.1"))
	mint := func(id string, to Addr) *movev1.MsgExecute {
		return execMsg(s1, "simple_nft", "mint", nil, bcsStr("C&C"), bcsStr("t"), bcsStr(id), bcsStr("u&1"), bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsSomeAddr(to))
	}
	nft := NftAddr(a1, "C&C", "1")
	cases := []struct {
		name    string
		run     func() error
		wantErr string // suffix of the abort; "" = success
	}{
		{"create", func() error { return h(f, create) }, ""},
		{"create again", func() error { return h(f, create) }, "::object, code=524289"},
		{"mint to acc2", func() error { return h(f, mint("1", a2)) }, ""},
		{"max supply 1", func() error { return h(f, mint("2", a2)) }, "::collection, code=131074"},
		{"mint into a collection of somebody else", func() error {
			return h(f, execMsg(s2, "simple_nft", "mint", nil, bcsStr("C&C"), bcsStr("t"), bcsStr("9"), bcsStr("u"), bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsNone()))
		}, "MISSING_DATA of type Execution"},
		{"burn by non-owner", func() error { return h(f, execMsg(s1, "simple_nft", "burn", []string{"0x1::nft::Nft"}, bcsAddr(nft))) }, "::simple_nft, code=327684"},
		{"set_uri on an immutable collection (checked before the creator)", func() error {
			return h(f, execMsg(s2, "simple_nft", "set_uri", []string{"0x1::nft::Nft"}, bcsAddr(nft), bcsStr("x")))
		}, "::initia_nft, code=327684"},
		{"mutable collection", func() error {
			return h(f, execMsg(s1, "simple_nft", "create_collection", nil, bcsStr("d"), bcsNone(), bcsStr("M"), bcsStr("u"),
				bcsBool(true), bcsBool(true), bcsBool(true), bcsBool(true), bcsBool(true), bcsBool(true), bcsDecimal("0")))
		}, ""},
		{"mint into it", func() error {
			return h(f, execMsg(s1, "simple_nft", "mint", nil, bcsStr("M"), bcsStr("t"), bcsStr("m1"), bcsStr("u"), bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsNone()))
		}, ""},
		{"set_uri by non-creator", func() error {
			return h(f, execMsg(s2, "simple_nft", "set_uri", []string{"0x1::nft::Nft"}, bcsAddr(NftAddr(a1, "M", "m1")), bcsStr("x")))
		}, "::initia_nft, code=327683"},
		{"token id with ::", func() error {
			return h(f, execMsg(s1, "simple_nft", "mint", nil, bcsStr("M"), bcsStr("t"), bcsStr("a::b"), bcsStr("u"), bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsNone()))
		}, "::nft, code=65545"},
		{"burn m1 by its owner", func() error {
			return h(f, execMsg(s1, "simple_nft", "burn", []string{"0x1::nft::Nft"}, bcsAddr(NftAddr(a1, "M", "m1"))))
		}, ""},
		{"re-mint m1: object version 2", func() error {
			f.Events = nil
			err := h(f, execMsg(s1, "simple_nft", "mint", nil, bcsStr("M"), bcsStr("t"), bcsStr("m1"), bcsStr("u"), bcsEmptyVec(), bcsEmptyVec(), bcsEmptyVec(), bcsNone()))
			if err == nil && !strings.Contains(f.Events[1].Attributes[1].Value, `"version":"2"`) {
				t.Errorf("re-created object: %s", f.Events[1].Attributes[1].Value)
			}
			return err
		}, ""},
		{"JSON transfer by owner", func() error {
			return hj(f, &movev1.MsgExecuteJSON{Sender: s2, ModuleAddress: "0x1", ModuleName: "object", FunctionName: "transfer_call",
				Args: []string{`"` + nft.String() + `"`, `"` + a1.String() + `"`}})
		}, ""},
		{"transfer of a missing object", func() error {
			return h(f, execMsg(s1, "object", "transfer_call", nil, bcsAddr(AccAddr([]byte{7})), bcsAddr(a2)))
		}, "::object, code=393218"},
		{"unknown function", func() error { return h(f, execMsg(s1, "nope", "nope", nil)) }, "FUNCTION_RESOLUTION_FAILURE of type Verification with message Function 0x1::nope::nope does not exist"},
		{"bad BCS", func() error { return h(f, execMsg(s1, "object", "transfer_call", nil, []byte{1}, []byte{2})) }, "FAILED_TO_DESERIALIZE_ARGUMENT"},
		{"managed coin, JSON, max supply", func() error {
			return hj(f, &movev1.MsgExecuteJSON{Sender: s1, ModuleAddress: "0x1", ModuleName: "managed_coin", FunctionName: "initialize",
				Args: []string{`"10"`, `"T"`, `"TT"`, `2`, `""`, `""`}})
		}, ""},
		{"mint above max supply", func() error {
			return h(f, execMsg(s1, "managed_coin", "mint", nil, bcsAddr(ManagedCoinMetadata(a1, "TT")), bcsU64(11)))
		}, "::fungible_asset, code=131077"},
		{"mint by non-creator", func() error {
			return h(f, execMsg(s2, "managed_coin", "mint_to", nil, bcsAddr(a2), bcsAddr(ManagedCoinMetadata(a1, "TT")), bcsU64(1)))
		}, "::managed_coin, code=393218"},
	}
	for _, c := range cases {
		f.Events = nil
		kv, bal := f.Snapshot()
		err := c.run()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "":
			var ce *sim.CodedError
			if !errors.As(err, &ce) || ce.Codespace != "undefined" || ce.Code != 1 || !strings.HasSuffix(ce.Log, c.wantErr) && !strings.Contains(ce.Log, c.wantErr) {
				t.Errorf("%s: got %v, want ...%s", c.name, err, c.wantErr)
			}
			f.Restore(kv, bal)
		}
		if c.name == "create" {
			data := f.Events[2].Attributes[1].Value
			if !strings.Contains(data, `"uri":"https://x.invalid/?a=1&b=<2>"`) || !strings.Contains(data, `"royalty":{"royalty":"0.1"`) {
				t.Errorf("collection event data %s", data)
			}
		}
	}
	if o := f.KV(StoreName)[keyObj(nft)]; !strings.Contains(string(o), a1.Hex()) {
		t.Errorf("NFT owner after the JSON transfer: %s", o)
	}
}
