package simtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// A VM module's own event types (wasmd's, x/move's): to SplitEvents only names, not kinds.
const (
	wasmEvent = "wasm"
	moveEvent = "move"
)

func TestSplitEvents(t *testing.T) {
	at := func(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }
	evs := []sim.Event{
		{Type: "tx", Attributes: []sim.Attribute{at("fee", "1u")}},
		{Type: "coin_spent", Attributes: []sim.Attribute{at("spender", "a")}},
		{Type: "message", Attributes: []sim.Attribute{at("action", "/x.Msg"), at("msg_index", "0")}},
		{Type: wasmEvent, Attributes: []sim.Attribute{at("k", "v"), at("msg_index", "0")}},
		{Type: "message", Attributes: []sim.Attribute{at("sender", "a"), at("msg_index", "1")}},
		{Type: moveEvent, Attributes: []sim.Attribute{at("action", "kept"), at("msg_index", "1")}},
	}
	tx, per := SplitEvents(evs)
	if len(tx) != 1 || tx[0].Type != "coin_spent" {
		t.Errorf("tx level: %v", tx)
	}
	if len(per["0"]) != 1 || per["0"][0].Type != wasmEvent || len(per["0"][0].Attributes) != 1 {
		t.Errorf("msg 0: %v", per["0"])
	}
	if len(per["1"]) != 2 || per["1"][1].Attributes[0].Key != "action" {
		t.Errorf("msg 1 (a message event without action, an action attribute elsewhere): %v", per["1"])
	}
}

func TestMsgResponses(t *testing.T) {
	// TxMsgData{msg_responses: [Any{type_url: "/a", value: 0x01 0x02}, Any{type_url: "/b"}]}
	anyA := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("/a"))
	anyA = protowire.AppendBytes(protowire.AppendTag(anyA, 2, protowire.BytesType), []byte{1, 2})
	anyB := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte("/b"))
	var data []byte
	data = protowire.AppendVarint(protowire.AppendTag(data, 3, protowire.VarintType), 7) // skipped
	data = protowire.AppendBytes(protowire.AppendTag(data, 2, protowire.BytesType), anyA)
	data = protowire.AppendBytes(protowire.AppendTag(data, 2, protowire.BytesType), anyB)
	got := MsgResponses(t, data)
	if len(got) != 2 || !bytes.Equal(got[0], []byte{1, 2}) || got[1] != nil {
		t.Errorf("MsgResponses = %x", got)
	}
}

func TestLoadBlock(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("comet/block_results/0002.json", `{"result":{"txs_results":[{"code":5,"codespace":"sdk","log":"x","events":[{"type":"tx","attributes":[{"key":"fee","value":"1u","index":true}]}]}]}}`)
	write("comet/block/0002.json", `{"result":{"block":{"header":{"time":"2026-11-21T12:00:00.5Z"}}}}`)
	write("rest/txs_block/0002.json", `{"txs":[{"body":{"messages":[{"@type":"/x.Msg","sender":"s","extra":1}]},"auth_info":{"fee":{"amount":[{"denom":"u","amount":"3"}]}}}]}`)
	b, ok := LoadBlock(t, dir, 2)
	if !ok || len(b.Txs) != 1 || b.Results[0].Code != 5 || b.Results[0].Events[0].Attributes[0].Value != "1u" ||
		b.Time.Nanosecond() != 5e8 || b.Txs[0].Body.Messages[0].Sender != "s" || !strings.Contains(string(b.Txs[0].Body.Messages[0].Raw), `"extra":1`) ||
		Coins(t, b.Txs[0].AuthInfo.Fee.Amount)[0].Amount.Int64() != 3 {
		t.Errorf("LoadBlock = %+v, %v", b, ok)
	}
	if _, ok := LoadBlock(t, dir, 3); ok {
		t.Error("a height the capture lacks loaded")
	}
	if Pad4(2) != "0002" || Pad4(12345) != "2345" {
		t.Error("Pad4")
	}
}

func TestMsgSenderAndAccounts(t *testing.T) {
	accs := Accounts("init", Acc1)
	if len(accs) != 1 || !bytes.Equal(accs[0].Addr, Acc1) || !bytes.Equal(MustBech(t, "init", accs[0].Bech32), Acc1) {
		t.Fatalf("Accounts = %+v", accs)
	}
	if got := MsgSender(&bankv1beta1.MsgSend{FromAddress: "a"}); got != "a" {
		t.Errorf("MsgSend sender %q", got)
	}
	if got := MsgSender(&movev1.MsgExecute{Sender: "b"}); got != "b" {
		t.Errorf("MsgExecute sender %q", got)
	}
	if got := MsgSender(&bankv1beta1.MsgSendResponse{}); got != "" {
		t.Errorf("no sender field: %q", got)
	}
}
