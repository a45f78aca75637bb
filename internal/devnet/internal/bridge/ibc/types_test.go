package ibc

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/chain/address"
)

func TestPacketDataBytes(t *testing.T) {
	tests := []struct {
		name string
		in   PacketData
		want string
	}{
		{"no memo", PacketData{Denom: "transfer/channel-0/uatom", Amount: "1000", Sender: "cosmos1s", Receiver: "init1r"},
			`{"amount":"1000","denom":"transfer/channel-0/uatom","receiver":"init1r","sender":"cosmos1s"}`},
		{"memo html escaped", PacketData{Denom: "uinit", Amount: "5", Sender: "a", Receiver: "b", Memo: `{"x":"<&>"}`},
			`{"amount":"5","denom":"uinit","memo":"{\"x\":\"\u003c\u0026\u003e\"}","receiver":"b","sender":"a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.in.Bytes()); got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
			back, err := ParsePacketData(tt.in.Bytes())
			if err != nil || back != tt.in {
				t.Errorf("round trip: %+v %v", back, err)
			}
		})
	}
	for _, bad := range []string{`{"amount":"0","denom":"u","receiver":"r","sender":"s"}`, `{"amount":"1","denom":"u","receiver":"r","sender":"s","x":1}`, `nope`} {
		if _, err := ParsePacketData([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestAckBytes(t *testing.T) {
	ok := SuccessAck()
	if got := hex.EncodeToString(ok.Bytes()); got != "7b22726573756c74223a2241513d3d227d" {
		t.Errorf("success ack hex %s", got)
	}
	if ok.Text() != `result:"\001" ` {
		t.Errorf("text %q", ok.Text())
	}
	e := ErrorAckFromErr(coded("sdk", 5, "insufficient funds"))
	if string(e.Bytes()) != `{"error":"ABCI code: 5: error handling packet: see events for details"}` {
		t.Errorf("error ack %s", e.Bytes())
	}
	for _, a := range []Ack{ok, e, ErrorAck("packet-forward-middleware error: x")} {
		back, err := ParseAck(a.Bytes())
		if err != nil || back.IsErr != a.IsErr || back.Error != a.Error || string(back.Result) != string(a.Result) {
			t.Errorf("round trip %+v -> %+v %v", a, back, err)
		}
	}
}

func TestDerivedAddresses(t *testing.T) {
	// Escrow address of transfer/channel-0 is the well-known cosmos1 escrow of channel-0.
	esc, _ := address.Bech32("cosmos", EscrowAddress("transfer", "channel-0"))
	if esc != "cosmos1a53udazy8ayufvy0s434pfwjcedzqv34kvz9tw" {
		t.Errorf("escrow %s", esc)
	}
	// transfer module account on the minimove fixture chain (module_accounts.json).
	mod, _ := address.Bech32("init", address.ModuleAccount("transfer"))
	if mod != "init1yl6hdjhmkf37639730gffanpzndzdpmhqfk6up" {
		t.Errorf("transfer module %s", mod)
	}
	if len(ForwardReceiver("channel-1", "init1x")) != 20 || len(HookIntermediary("move", "channel-1", "init1x")) != 32 {
		t.Error("derived address lengths")
	}
	if string(ForwardReceiver("channel-1", "a")) == string(ForwardReceiver("channel-2", "a")) {
		t.Error("forward receiver ignores channel")
	}
}

func TestRevisionNumber(t *testing.T) {
	for in, want := range map[string]uint64{"initia-devnet-1": 1, "noble-7": 7, "local": 0, "x-01": 0, "interwoven-1": 1} {
		if got := RevisionNumber(in); got != want {
			t.Errorf("%s: %d want %d", in, got, want)
		}
	}
}

func TestParseForward(t *testing.T) {
	three := uint8(3)
	tests := []struct {
		name   string
		memo   string
		want   *ForwardMetadata
		fwd    bool
		hasErr bool
	}{
		{"plain memo", "hello", nil, false, false},
		{"other json", `{"wasm":{}}`, nil, false, false},
		{"simple", `{"forward":{"receiver":"init1r","port":"transfer","channel":"channel-3","timeout":"10m","retries":3}}`,
			&ForwardMetadata{Receiver: "init1r", Port: "transfer", Channel: "channel-3", Timeout: 10 * time.Minute, Retries: &three}, true, false},
		{"nested next object keeps order", `{"forward":{"receiver":"pfm","port":"transfer","channel":"channel-1","timeout":600000000000,"next":{"forward":{"receiver":"init1z","port":"transfer","channel":"channel-9","next":{"wasm":{"b":1,"a":2}}}}}}`,
			&ForwardMetadata{Receiver: "pfm", Port: "transfer", Channel: "channel-1", Timeout: 10 * time.Minute,
				Next: `{"forward":{"receiver":"init1z","port":"transfer","channel":"channel-9","next":{"wasm":{"b":1,"a":2}}}}`}, true, false},
		{"next as string", `{"forward":{"receiver":"r","port":"transfer","channel":"channel-1","next":"{\"forward\":{\"receiver\":\"x\",\"port\":\"transfer\",\"channel\":\"channel-2\"}}"}}`,
			&ForwardMetadata{Receiver: "r", Port: "transfer", Channel: "channel-1", Next: `{"forward":{"receiver":"x","port":"transfer","channel":"channel-2"}}`}, true, false},
		{"missing receiver", `{"forward":{"port":"transfer","channel":"channel-1"}}`, nil, true, true},
		{"bad channel", `{"forward":{"receiver":"r","port":"transfer","channel":"c"}}`, nil, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fwd, err := ParseForward(tt.memo)
			if fwd != tt.fwd || (err != nil) != tt.hasErr {
				t.Fatalf("fwd %v err %v", fwd, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
	// the nested next parses again as a forward
	fm, _, _ := ParseForward(tests[3].memo)
	inner, fwd, err := ParseForward(fm.Next)
	if !fwd || err != nil || inner.Channel != "channel-9" || inner.Next != `{"wasm":{"b":1,"a":2}}` {
		t.Errorf("inner %+v %v %v", inner, fwd, err)
	}
}

func TestParseHookAndStrip(t *testing.T) {
	memo := `{"move":{"message":{"module_address":"0x1","module_name":"dex","function_name":"swap","type_args":[],"args":[]},"async_callback":{"id":7,"module_address":"0x1","module_name":"cb"}}}`
	h, ok, err := ParseHook("move", memo)
	if !ok || err != nil {
		t.Fatalf("%v %v", ok, err)
	}
	if err := h.ValidateReceiver("0x1::dex::swap", nil); err != nil {
		t.Error(err)
	}
	if err := h.ValidateReceiver("init1abc", nil); err == nil {
		t.Error("bad receiver accepted")
	}
	if _, ok, err := ParseHook("move", `{"move":{"message":{},"extra":1}}`); !ok || err == nil {
		t.Error("strict move decoding")
	}
	if _, ok, _ := ParseHook("evm", memo); ok {
		t.Error("routed to the wrong vm")
	}
	stripped, cb := StripAsyncCallback("move", memo)
	if strings.Contains(stripped, "async_callback") || !strings.Contains(string(cb), `"id":7`) {
		t.Errorf("strip: %s / %s", stripped, cb)
	}
	only, _ := StripAsyncCallback("move", `{"move":{"async_callback":{"id":1}},"other":1}`)
	if only != `{"other":1}` {
		t.Errorf("strip whole key: %s", only)
	}
}
