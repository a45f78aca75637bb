package txcodec

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// signerFields is the (cosmos.msg.v1.signer) option of the messages whose signer field
// is not "sender"; for MsgMultiSend the signers are the inputs' addresses.
var signerFields = map[protoreflect.FullName]protoreflect.Name{
	"cosmos.bank.v1beta1.MsgSend":            "from_address",
	"ibc.core.client.v1.MsgUpdateClient":     "signer",
	"ibc.core.channel.v1.MsgRecvPacket":      "signer",
	"ibc.core.channel.v1.MsgAcknowledgement": "signer",
	"ibc.core.channel.v1.MsgTimeout":         "signer",
}

// MsgSigners returns the addresses (as written in the message, usually bech32) that must
// sign m, per the message's cosmos.msg.v1.signer option. The devnet checks them against
// the tx's signer infos.
func MsgSigners(m proto.Message) ([]string, error) {
	r := m.ProtoReflect()
	desc := r.Descriptor()
	if desc.FullName() == "cosmos.bank.v1beta1.MsgMultiSend" {
		inputs := r.Get(desc.Fields().ByName("inputs")).List()
		var out []string
		seen := map[string]bool{}
		for i := 0; i < inputs.Len(); i++ {
			in := inputs.Get(i).Message()
			a := in.Get(in.Descriptor().Fields().ByName("address")).String()
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no inputs", desc.FullName())
		}
		return out, nil
	}
	name, ok := signerFields[desc.FullName()]
	if !ok {
		name = "sender"
	}
	fd := desc.Fields().ByName(name)
	if fd == nil || fd.Kind() != protoreflect.StringKind || fd.IsList() {
		return nil, fmt.Errorf("%s: no signer field", desc.FullName())
	}
	return []string{r.Get(fd).String()}, nil
}
