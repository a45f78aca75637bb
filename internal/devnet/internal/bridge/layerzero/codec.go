// Package layerzero is LayerZero v2 on the devnet: the endpoint and a USDT OFT on both sides
// — on the Ethereum chain the EndpointV2 and an OFT adapter over the USDT ERC-20 (lock on
// send, unlock on receive) as pseudo-contracts, on the Initia L1 the endpoint_v2 and a
// mint/burn OFT as Move packages — and a DVN/executor bot that verifies and delivers each
// packet after a configurable delay. The wire facts (event signatures and fields, the
// packet and OFT message codecs, the GUID, SendParam/MessagingFee, the Move entry function
// and view arguments) are LayerZero's; nothing of its code runs here.
//
// Facts read from LayerZero-Labs/LayerZero-v2: packages/layerzero-v2/evm/protocol/contracts/
// interfaces/ILayerZeroEndpointV2.sol (events, MessagingFee, Origin), libs/GUID.sol,
// messagelib/libs/PacketV1Codec.sol, evm/oapp/contracts/oft/interfaces/IOFT.sol (SendParam,
// OFTSent/OFTReceived, quoteSend, send), oft/libs/OFTMsgCodec.sol; initia/contracts/endpoint_v2/
// sources/internal/channels.move (the Move events), endpoint_v2_common/sources/guid.move; and
// from LayerZero-Labs/devtools' Move OFT (oft.move: send_withdraw, quote_send; oft_core.move:
// OftSent/OftReceived).
package layerzero

import (
	"encoding/binary"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Endpoint ids (eid) of the devnet's two LayerZero chains: the values of LayerZero's
// Sepolia and Initia testnet endpoints, which the registry's endpoint_id fields carry.
const (
	EIDEthereum uint32 = 40161
	EIDL1       uint32 = 40326
)

// SharedDecimals of the USDT OFT: LayerZero's default (OFTCore sharedDecimals) and USDT's
// local decimals on both sides, so amounts in shared and local decimals are equal.
const SharedDecimals = 6

// Packet is a LayerZero v1-codec packet (PacketV1Codec.sol).
type Packet struct {
	Nonce    uint64
	SrcEID   uint32
	Sender   [32]byte
	DstEID   uint32
	Receiver [32]byte
	GUID     [32]byte
	Message  []byte
}

const headerLen = 81 // version 1 + nonce 8 + src eid 4 + sender 32 + dst eid 4 + receiver 32

// GUID is keccak256(nonce ‖ srcEid ‖ sender ‖ dstEid ‖ receiver), big-endian packed
// (GUID.sol generate; endpoint_v2_common::guid::compute_guid writes the same bytes).
func GUID(nonce uint64, srcEID uint32, sender [32]byte, dstEID uint32, receiver [32]byte) [32]byte {
	b := make([]byte, 0, 80)
	b = binary.BigEndian.AppendUint64(b, nonce)
	b = binary.BigEndian.AppendUint32(b, srcEID)
	b = append(b, sender[:]...)
	b = binary.BigEndian.AppendUint32(b, dstEID)
	b = append(b, receiver[:]...)
	return crypto.Keccak256Hash(b)
}

// Encode is the encoded packet PacketSent carries.
func (p Packet) Encode() []byte {
	b := p.Header()
	b = append(b, p.GUID[:]...)
	return append(b, p.Message...)
}

// Header is the packet header a DVN verifies (version through receiver).
func (p Packet) Header() []byte {
	b := make([]byte, 0, headerLen+32+len(p.Message))
	b = append(b, 1)
	b = binary.BigEndian.AppendUint64(b, p.Nonce)
	b = binary.BigEndian.AppendUint32(b, p.SrcEID)
	b = append(b, p.Sender[:]...)
	b = binary.BigEndian.AppendUint32(b, p.DstEID)
	return append(b, p.Receiver[:]...)
}

// PayloadHash is keccak256(guid ‖ message), what the DVN commits.
func (p Packet) PayloadHash() [32]byte { return PayloadHash(p.GUID, p.Message) }

// PayloadHash is keccak256(guid ‖ message).
func PayloadHash(guid [32]byte, message []byte) [32]byte {
	return crypto.Keccak256Hash(append(append([]byte(nil), guid[:]...), message...))
}

var errPacket = errors.New("layerzero: malformed packet")

// DecodePacket reads an encoded packet.
func DecodePacket(b []byte) (Packet, error) {
	if len(b) < headerLen+32 || b[0] != 1 {
		return Packet{}, errPacket
	}
	p, err := DecodeHeader(b[:headerLen])
	if err != nil {
		return Packet{}, err
	}
	copy(p.GUID[:], b[81:113])
	p.Message = append([]byte(nil), b[113:]...)
	return p, nil
}

// DecodeHeader reads a packet header (no GUID or message).
func DecodeHeader(b []byte) (Packet, error) {
	if len(b) != headerLen || b[0] != 1 {
		return Packet{}, errPacket
	}
	var p Packet
	p.Nonce = binary.BigEndian.Uint64(b[1:9])
	p.SrcEID = binary.BigEndian.Uint32(b[9:13])
	copy(p.Sender[:], b[13:45])
	p.DstEID = binary.BigEndian.Uint32(b[45:49])
	copy(p.Receiver[:], b[49:81])
	return p, nil
}

// OFTMessage is the OFT's message: sendTo ‖ amountSD (OFTMsgCodec.sol / oft_msg_codec.move,
// no compose).
func OFTMessage(to [32]byte, amountSD uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), to[:]...), amountSD)
}

// DecodeOFTMessage reads an OFT message's recipient and amount (a compose part, if any,
// follows: the L1's OFT hands it to the endpoint, compose.go).
func DecodeOFTMessage(m []byte) (to [32]byte, amountSD uint64, err error) {
	if len(m) < 40 {
		return to, 0, errors.New("layerzero: short OFT message")
	}
	copy(to[:], m[:32])
	return to, binary.BigEndian.Uint64(m[32:40]), nil
}

// Bytes32 is an EVM address left-padded to 32 bytes (AddressCast.toBytes32).
func Bytes32(a common.Address) [32]byte { return common.BytesToHash(a.Bytes()) }

// Executor options (type 3): uint16 type 3, then per option workerId u8 ‖ size u16 ‖
// optionType u8 ‖ the option (size−1 bytes); the executor is worker 1 and its lzCompose
// option (type 3) is index u16 ‖ gas u128 [‖ value u128] (OptionsBuilder.sol,
// ExecutorOptions.sol).
const (
	optionsType3       = 3
	executorWorkerID   = 1
	optionTypeCompose  = 3
	composeOptionBytes = 2 + 16
)

// ComposeOptions are type-3 options holding one executor lzCompose option.
func ComposeOptions(index uint16, gas uint64) []byte {
	b := binary.BigEndian.AppendUint16(nil, optionsType3)
	b = append(b, executorWorkerID)
	b = binary.BigEndian.AppendUint16(b, composeOptionBytes+1)
	b = append(b, optionTypeCompose)
	b = binary.BigEndian.AppendUint16(b, index)
	b = append(b, make([]byte, 8)...)
	return binary.BigEndian.AppendUint64(b, gas)
}

// HasComposeOption reports whether type-3 options carry an executor lzCompose option for
// index.
func HasComposeOption(opts []byte, index uint16) bool {
	if len(opts) < 2 || binary.BigEndian.Uint16(opts) != optionsType3 {
		return false
	}
	for b := opts[2:]; len(b) >= 3; {
		worker, size := b[0], int(binary.BigEndian.Uint16(b[1:3]))
		if size < 1 || len(b) < 3+size {
			return false
		}
		opt := b[3 : 3+size]
		if worker == executorWorkerID && opt[0] == optionTypeCompose && len(opt) >= 3 && binary.BigEndian.Uint16(opt[1:3]) == index {
			return true
		}
		b = b[3+size:]
	}
	return false
}
