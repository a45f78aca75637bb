package msgs

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// The wrap hook's calldata, decoded back with the signatures the wrapper and ERC-20 define.
func TestWrapHookMsgs(t *testing.T) {
	recv20 := bytes.Repeat([]byte{0xab}, 20)
	recvBech, _ := bech32.EncodeFromBase256("init", recv20)
	h := WrapHook{Sender: "init1sender", Receiver: recvBech, Wrapper: "0x00000000000000000000000000000000000000c1",
		BridgedDenom: "l2/771d", BridgedToken: "0x00000000000000000000000000000000000000e2"}
	ms, err := h.Msgs()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Fatalf("%d msgs", len(ms))
	}
	for i, want := range []struct {
		contract, sig string
		args          []any
	}{
		{h.BridgedToken, "approve(address,uint256)", []any{common.HexToAddress(h.Wrapper), maxUint256}},
		{h.Wrapper, "toLocal(address,string,uint8)", []any{common.BytesToAddress(recv20), h.BridgedDenom, uint8(6)}},
	} {
		var c evmv1.MsgCall
		if ms[i].MsgTypeURL != TypeMsgCall {
			t.Fatalf("msg %d type %s", i, ms[i].MsgTypeURL)
		}
		if err := txcodec.UnmarshalAminoInto([]byte(ms[i].Msg), &c); err != nil {
			t.Fatal(err)
		}
		in, _ := hex.DecodeString(strings.TrimPrefix(c.Input, "0x"))
		if !bytes.Equal(in[:4], crypto.Keccak256([]byte(want.sig))[:4]) {
			t.Errorf("msg %d selector %x, want %s", i, in[:4], want.sig)
		}
		m := wrapABI.Methods[strings.Split(want.sig, "(")[0]]
		args, err := m.Inputs.Unpack(in[4:])
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.args {
			if got, exp := strings.ToLower(strings.TrimSpace(toString(args[j]))), strings.ToLower(toString(want.args[j])); got != exp {
				t.Errorf("msg %d arg %d = %s, want %s", i, j, got, exp)
			}
		}
		if !strings.EqualFold(c.ContractAddr, want.contract) || c.Sender != h.Sender || c.Value != "0" {
			t.Errorf("msg %d = %+v", i, &c)
		}
	}
	for _, bad := range []WrapHook{
		{Receiver: "init1notbech32", Wrapper: h.Wrapper, BridgedToken: h.BridgedToken},
		{Receiver: mustBech(t, bytes.Repeat([]byte{1}, 32)), Wrapper: h.Wrapper, BridgedToken: h.BridgedToken},
		{Receiver: "0x1234", Wrapper: h.Wrapper, BridgedToken: h.BridgedToken},
		{Receiver: recvBech, Wrapper: "wrapper", BridgedToken: h.BridgedToken},
	} {
		if _, err := bad.Msgs(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case common.Address:
		return x.Hex()
	case interface{ String() string }:
		return x.String()
	case string:
		return x
	case uint8:
		return string(rune('0' + x))
	}
	return ""
}

func mustBech(t *testing.T, b []byte) string {
	s, err := bech32.EncodeFromBase256("init", b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
