package engine

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
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
