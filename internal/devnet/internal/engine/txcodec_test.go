package engine

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// TestTxcodecInterop: transactions the project's txcodec builds (the router, relayer and tests
// sign with it) are accepted and executed, in direct and legacy amino JSON modes, with eth and
// Cosmos keys; and the engine's own direct signing produces the same bytes as txcodec's.
func TestTxcodecInterop(t *testing.T) {
	cases := []struct {
		name   string
		cosmos bool
		mode   int32
	}{
		{"eth key direct", false, SignModeDirect},
		{"eth key amino json", false, signModeLegacyAminoJSON},
		{"cosmos key direct", true, SignModeDirect},
		{"cosmos key amino json", true, signModeLegacyAminoJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, err := New(Config{ChainID: "interop-1", Kind: KindL1, Seed: 3, NumAccounts: 2, CosmosKeys: c.cosmos})
			if err != nil {
				t.Fatal(err)
			}
			k := ch.Key(0)
			typ := txcodec.EthSecp256k1
			if c.cosmos {
				typ = txcodec.Secp256k1
			}
			pk, err := txcodec.NewPrivKey(typ, k.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			num, seq, _ := ch.AccountState(k.Address())
			msg := &bankv1beta1.MsgSend{FromAddress: ch.Accounts()[0].Bech32, ToAddress: ch.Accounts()[1].Bech32,
				Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "42"}}}
			b := &txcodec.Builder{ChainID: ch.ChainID(), Msgs: []proto.Message{msg}, GasLimit: 200000,
				Signers: []txcodec.Signer{{Key: pk, AccountNumber: num, Sequence: seq}}}
			if c.mode == signModeLegacyAminoJSON {
				b.SignMode = txcodec.SignModeLegacyAminoJSON
			}
			raw, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			if c.mode == SignModeDirect {
				mine, err := SignDirect(ch.ChainID(), k, num, seq, []proto.Message{msg}, "", Fee{GasLimit: 200000})
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(mine, raw) {
					t.Fatalf("engine and txcodec sign differently:\n%x\n%x", mine, raw)
				}
			}
			if r := ch.BroadcastTxSync(raw); r.Code != 0 {
				t.Fatalf("check: %+v", r)
			}
			blk, err := ch.ProduceBlock()
			if err != nil {
				t.Fatal(err)
			}
			if len(blk.Results) == 0 || blk.Results[0].Code != 0 {
				t.Fatalf("deliver: %+v", blk.Results)
			}
		})
	}
}

const protoSpace = " "

// TestCheckTxDecodeFailures: what CheckTx answers for bytes that are no tx, decoded through
// txcodec, reads as the node's decoder always has here.
func TestCheckTxDecodeFailures(t *testing.T) {
	ch, err := New(Config{ChainID: "decode-1", Kind: KindL1, Seed: 3, NumAccounts: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := ch.Key(0)
	num, seq, _ := ch.AccountState(k.Address())
	send := &bankv1beta1.MsgSend{FromAddress: ch.Accounts()[0].Bech32, ToAddress: ch.Accounts()[0].Bech32,
		Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "1"}}}
	good, err := SignDirect(ch.ChainID(), k, num, seq, []proto.Message{send}, "", Fee{GasLimit: 200000})
	if err != nil {
		t.Fatal(err)
	}
	d, err := txcodec.Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	reencode := func(mod func(*txcodec.DecodedTx)) []byte {
		c := &txcodec.DecodedTx{Raw: proto.Clone(d.Raw).(*txv1beta1.TxRaw), Body: proto.Clone(d.Body).(*txv1beta1.TxBody)}
		mod(c)
		if c.Body != nil {
			if c.Raw.BodyBytes, err = proto.Marshal(c.Body); err != nil {
				t.Fatal(err)
			}
		}
		b, err := proto.Marshal(c.Raw)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name string
		tx   []byte
		log  string
	}{
		{"truncated", []byte{0x0a, 0x05, 0x01}, "tx raw: malformed protobuf: tx parse error"},
		{"body", reencode(func(c *txcodec.DecodedTx) { c.Body, c.Raw.BodyBytes = nil, []byte{0x12, 0x09} }), "tx body: malformed protobuf: tx parse error"},
		{"auth info", reencode(func(c *txcodec.DecodedTx) { c.Raw.AuthInfoBytes = []byte{0xff} }), "auth info: malformed protobuf: tx parse error"},
		{"no message", reencode(func(c *txcodec.DecodedTx) { c.Body.Messages = nil }), "must contain at least one message: tx parse error"},
		{"unknown message", reencode(func(c *txcodec.DecodedTx) { c.Body.Messages[0].TypeUrl = "/example.v1.MsgNone" }),
			// protobuf-go spells its errors with a space or a no-break space, at random per build
			"unable to resolve type URL /example.v1.MsgNone: proto:" + protoSpace + "not found: tx parse error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ch.BroadcastTxSync(c.tx)
			r.Log = strings.Replace(r.Log, "proto:\u00a0", "proto:"+protoSpace, 1)
			if r.Code != codeTxDecode || r.Codespace != codespaceSDK || r.Log != c.log {
				t.Fatalf("got %d %s %q, want %d sdk %q", r.Code, r.Codespace, r.Log, codeTxDecode, c.log)
			}
		})
	}
	if r := ch.BroadcastTxSync(good); r.Code != 0 {
		t.Fatalf("the unmodified tx: %+v", r)
	}
}
