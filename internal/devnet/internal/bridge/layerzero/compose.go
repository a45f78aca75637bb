package layerzero

// LayerZero compose on the L1: an OFT send whose SendParam.composeMsg is not empty carries,
// after the recipient and the amount, the sender (composeFrom) and that message
// (OFTMsgCodec.sol encode: sendTo ‖ amountSD ‖ composeFrom ‖ composeMsg; the Move
// oft_msg_codec.move writes the same bytes). On arrival the OFT credits the recipient — here
// the composer — and hands the endpoint a compose message (OFTCore._lzReceive →
// endpoint.sendCompose; on Initia endpoint::send_compose → messaging_composer::send_compose,
// which records its hash and emits ComposeSent {from, to, guid, index, message}). The message
// is oft_compose_msg_codec's nonce u64 ‖ src_eid u32 ‖ amount_ld u256 ‖ composeFrom ‖
// composeMsg. The executor then calls the composer's lz_compose(from, guid, index, message,
// extra_data); the composer clears the message at the endpoint (endpoint::clear_compose:
// the hash must match, then ComposeDelivered {from, to, guid, index}) and acts on it
// (LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/initia/contracts/endpoint_v2/sources/endpoint.move,
// LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/initia/contracts/endpoint_v2/sources/internal/messaging_composer.move,
// LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/initia/contracts/oapps/oft_common/sources/oft_compose_msg_codec.move,
// LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/evm/oapp/contracts/oft/OFTCore.sol,
// LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/evm/protocol/contracts/MessagingComposer.sol).
//
// The devnet's one composer makes an OPinit deposit of what arrived: its composeMsg (the
// sender's, rollgate's format) is bridge_id u64 ‖ to bytes32 (the recipient's account on the
// rollup, right-aligned) ‖ data (the deposit's hook, usually empty), all big-endian as
// LayerZero's codecs write. It sends /opinit.ophost.v1.MsgInitiateTokenDeposit from its own
// account through the L1's ophost handler, so the deposit is the same as a user's
// (initiate_token_deposit in the compose tx, relayed to the rollup by the executor).

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// L1Composer is the OPinit composer's package address: an account address (its last 20
// bytes), so its primary store holds what the OFT credits it and it signs its deposits.
var L1Composer = move.AccAddr(crypto.Keccak256([]byte("rollgate/devnet/layerzero/opinit_composer"))[12:])

// ComposerModule and ComposeFunction name the composer's lz_compose (the module the composer
// registered with endpoint::register_composer).
const (
	ComposerModule  = "opinit_composer"
	ComposeFunction = "lz_compose"
)

// The endpoint's compose events.
var (
	TagComposeSent      = L1Endpoint.String() + "::messaging_composer::ComposeSent"
	TagComposeDelivered = L1Endpoint.String() + "::messaging_composer::ComposeDelivered"
)

// Compose abort codes (messaging_composer.move, the composer's).
const (
	codeComposeAlreadyCleared = 1
	codeComposeNotFound       = 3
	codeComposeMessage        = 0x10001
)

// composeOffset is where an OFT message's compose part starts (oft_msg_codec
// COMPOSE_MESSAGE_OFFSET).
const composeOffset = 40

// OFTComposeMessage is the OFT message of a send with a compose: sendTo ‖ amountSD ‖
// composeFrom ‖ composeMsg.
func OFTComposeMessage(to [32]byte, amountSD uint64, from [32]byte, composeMsg []byte) []byte {
	m := OFTMessage(to, amountSD)
	if len(composeMsg) == 0 {
		return m
	}
	return append(append(m, from[:]...), composeMsg...)
}

// ComposeMessage is oft_compose_msg_codec's encode: nonce ‖ src_eid ‖ amount_ld (u256) ‖
// the compose payload (composeFrom ‖ composeMsg).
func ComposeMessage(nonce uint64, srcEID uint32, amountLD uint64, payload []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, nonce)
	b = binary.BigEndian.AppendUint32(b, srcEID)
	b = append(b, make([]byte, 24)...)
	b = binary.BigEndian.AppendUint64(b, amountLD)
	return append(b, payload...)
}

// OPinitCompose is the composer's composeMsg: bridge_id ‖ to ‖ data.
func OPinitCompose(bridgeID uint64, to [32]byte, data []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, bridgeID)
	b = append(b, to[:]...)
	return append(b, data...)
}

func composeKey(from, to move.Addr, guid []byte, index uint16) string {
	return fmt.Sprintf("compose/%x/%x/%x/%d", from[:], to[:], guid, index)
}

// sendCompose is the endpoint's send_compose for the OFT: the message's hash kept until the
// composer clears it, and ComposeSent.
func sendCompose(c *move.Call, from, to move.Addr, guid []byte, index uint16, message []byte) error {
	kv := c.Env().Store(storeName)
	k := composeKey(from, to, guid, index)
	if _, ok := kv.Get(k); ok {
		return move.AbortAt(L1Endpoint, "messaging_composer", 2) // ECOMPOSE_ALREADY_SENT
	}
	kv.Set(k, crypto.Keccak256(message))
	c.Emit(TagComposeSent,
		move.Field{Name: "from", Value: from.String()},
		move.Field{Name: "to", Value: to.String()},
		move.Field{Name: "guid", Value: hex0x(guid)},
		move.Field{Name: "index", Value: uint32(index)},
		move.Field{Name: "message", Value: hex0x(message)})
	return nil
}

// cleared marks a cleared compose message (messaging_composer's 0xff…ff).
var cleared = []byte{0xff}

// clearCompose is the endpoint's clear_compose for the composer: the message must be the one
// sent and not cleared yet; ComposeDelivered.
func clearCompose(c *move.Call, from, to move.Addr, guid []byte, index uint16, message []byte) error {
	kv := c.Env().Store(storeName)
	k := composeKey(from, to, guid, index)
	h, ok := kv.Get(k)
	switch {
	case !ok:
		return move.AbortAt(L1Endpoint, "messaging_composer", codeComposeNotFound)
	case string(h) != string(crypto.Keccak256(message)):
		return move.AbortAt(L1Endpoint, "messaging_composer", codeComposeAlreadyCleared)
	}
	kv.Set(k, cleared)
	c.Emit(TagComposeDelivered,
		move.Field{Name: "from", Value: from.String()},
		move.Field{Name: "to", Value: to.String()},
		move.Field{Name: "guid", Value: hex0x(guid)},
		move.Field{Name: "index", Value: uint32(index)})
	return nil
}

// ComposerPackage is the L1's OPinit composer.
type ComposerPackage struct {
	// OFT is the only OApp whose compose messages it accepts (the composer must check the
	// sender: anyone may send a compose message).
	OFT move.Addr
	// Meta is the token the OFT credits (the deposit's coin).
	Meta move.Addr
	// Deposit runs a MsgInitiateTokenDeposit through the chain's ophost.
	Deposit sim.Handler
}

// Entry implements move.Package.
func (p *ComposerPackage) Entry(module, fn string) (func(*move.Call) error, uint64, bool) {
	if module == ComposerModule && fn == ComposeFunction {
		return p.lzCompose, 110_000, true
	}
	return nil, 0, false
}

// View implements move.Package.
func (p *ComposerPackage) View(sim.Query, string, string, *move.Args) (string, bool, error) {
	return "", false, nil
}

// lzCompose is opinit_composer::lz_compose(from address, guid vector<u8>, index u16,
// message vector<u8>, extra_data vector<u8>).
func (p *ComposerPackage) lzCompose(c *move.Call) error {
	a := c.Args
	from, e1 := a.Addr(0)
	guid, e2 := a.Bytes(1)
	index, e3 := a.U16(2)
	msg, e4 := a.Bytes(3)
	_, e5 := a.Bytes(4)
	if err := move.ArgsErr(e1, e2, e3, e4, e5); err != nil {
		return err
	}
	if from != p.OFT || len(guid) != 32 {
		return move.AbortAt(L1Composer, ComposerModule, codeComposeMessage)
	}
	if err := clearCompose(c, from, L1Composer, guid, index, msg); err != nil {
		return err
	}
	// nonce 8 ‖ src_eid 4 ‖ amount_ld 32 ‖ compose_from 32 ‖ bridge_id 8 ‖ to 32 ‖ data
	const head = 8 + 4 + 32 + 32
	if len(msg) < head+8+32 {
		return move.AbortAt(L1Composer, ComposerModule, codeComposeMessage)
	}
	amt := new(big.Int).SetBytes(msg[12:44])
	body := msg[head:]
	bridgeID := binary.BigEndian.Uint64(body[:8])
	to := body[8:40]
	data := body[40:]
	recipient := "0x" + hex.EncodeToString(to[12:])
	for _, b := range to[:12] {
		if b != 0 {
			recipient = "0x" + hex.EncodeToString(to)
			break
		}
	}
	sender, err := bech32.EncodeFromBase256(c.Env().AddressPrefix(), L1Composer.Account())
	if err != nil {
		return err
	}
	dep := &ophostv1.MsgInitiateTokenDeposit{Sender: sender, BridgeId: bridgeID, To: recipient,
		Amount: &basev1beta1.Coin{Denom: move.MoveDenom(p.Meta), Amount: amt.String()}, Data: data}
	return p.Deposit(c.Env(), proto.Message(dep))
}
