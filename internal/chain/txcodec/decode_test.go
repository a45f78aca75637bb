package txcodec

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A decode failure names the part that did not parse, and still reads (and unwraps) as
// ErrTxDecode.
func TestDecodeErrorNamesThePart(t *testing.T) {
	truncated := []byte{0x0a, 0x05, 0x01} // field 1, length 5, one byte
	body := mustMarshal(t, &txv1beta1.TxBody{Memo: "m"})
	cases := []struct {
		name string
		tx   []byte
		part string
	}{
		{"raw", truncated, PartTxRaw},
		{"body", mustMarshal(t, &txv1beta1.TxRaw{BodyBytes: truncated}), PartTxBody},
		{"auth info", mustMarshal(t, &txv1beta1.TxRaw{BodyBytes: body, AuthInfoBytes: truncated}), PartAuthInfo},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, decode := range []func([]byte) (*DecodedTx, error){Decode, DecodeEnvelope} {
				_, err := decode(c.tx)
				var de *DecodeError
				if !errors.As(err, &de) || de.Part != c.part {
					t.Fatalf("err %v: want a DecodeError of part %q", err, c.part)
				}
				if !errors.Is(err, ErrTxDecode) || !strings.HasPrefix(err.Error(), "tx parse error: "+c.part+": ") {
					t.Fatalf("err %q does not read as ErrTxDecode of %s", err, c.part)
				}
			}
		})
	}
}

// DecodeEnvelope leaves the messages packed, so one that does not decode fails only Decode.
func TestDecodeEnvelopeLeavesMessagesPacked(t *testing.T) {
	good := &bankv1beta1.MsgSend{FromAddress: "a", ToAddress: "b"}
	goodAny, err := anypb.New(good)
	if err != nil {
		t.Fatal(err)
	}
	goodAny.TypeUrl = "/cosmos.bank.v1beta1.MsgSend"
	bad := &anypb.Any{TypeUrl: "/cosmos.bank.v1beta1.MsgSend", Value: []byte{0x0a, 0x05}}
	unknown := &anypb.Any{TypeUrl: "/example.v1.MsgUnknown", Value: []byte{0x01}}
	tx := func(msgs ...*anypb.Any) []byte {
		return mustMarshal(t, &txv1beta1.TxRaw{
			BodyBytes:     mustMarshal(t, &txv1beta1.TxBody{Messages: msgs, Memo: "memo", TimeoutHeight: 7}),
			AuthInfoBytes: mustMarshal(t, &txv1beta1.AuthInfo{Fee: &txv1beta1.Fee{GasLimit: 5}}),
			Signatures:    [][]byte{{1, 2}},
		})
	}

	d, err := DecodeEnvelope(tx(goodAny, bad))
	if err != nil {
		t.Fatal(err)
	}
	if d.Msgs != nil || len(d.Body.Messages) != 2 || d.Body.Memo != "memo" || d.Body.TimeoutHeight != 7 || d.Fee().GasLimit != 5 || len(d.Raw.Signatures) != 1 {
		t.Fatalf("envelope: %+v", d)
	}
	if _, err := Decode(tx(goodAny, bad)); !errors.Is(err, ErrTxDecode) {
		t.Fatalf("Decode of a corrupt message: %v", err)
	}
	var de *DecodeError
	if _, err := Decode(tx(goodAny, bad)); errors.As(err, &de) {
		t.Fatalf("a corrupt message is no part's DecodeError: %v", err)
	}

	full, err := Decode(tx(goodAny, unknown))
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Msgs) != 2 || !proto.Equal(full.Msgs[0], good) || full.Msgs[1] != proto.Message(full.Body.Messages[1]) {
		t.Fatalf("msgs: %v", full.Msgs)
	}
}
