package txcodec

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	channelv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/channel/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
)

func TestMsgSigners(t *testing.T) {
	cases := []struct {
		msg  proto.Message
		want []string
		err  bool
	}{
		{&bankv1beta1.MsgSend{FromAddress: "a", ToAddress: "b"}, []string{"a"}, false},
		{&bankv1beta1.MsgMultiSend{Inputs: []*bankv1beta1.Input{{Address: "a"}, {Address: "c"}, {Address: "a"}}}, []string{"a", "c"}, false},
		{&bankv1beta1.MsgMultiSend{}, nil, true},
		{&movev1.MsgExecute{Sender: "s"}, []string{"s"}, false},
		{&channelv1.MsgRecvPacket{Signer: "relayer"}, []string{"relayer"}, false},
		{&txv1beta1.Fee{}, nil, true},
	}
	for _, c := range cases {
		got, err := MsgSigners(c.msg)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("MsgSigners(%T) = %v, %v; want %v", c.msg, got, err, c.want)
		}
	}
}
