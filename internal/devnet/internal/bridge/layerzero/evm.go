package layerzero

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/devnet/internal/ethereum"
)

// The Ethereum chain's LayerZero contracts: the CREATE addresses of Anvil's account #0 at
// nonces 0, 1, 2 (USDT, its OFT adapter, the endpoint), where a `forge script` deploying them
// on a fresh Anvil puts them; the devnet places them at genesis.
var (
	EVMUSDT     = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	EVMAdapter  = common.HexToAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512")
	EVMEndpoint = common.HexToAddress("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0")
	// EVMSendLibrary is the send library PacketSent names (the endpoint's default SendUln302).
	EVMSendLibrary = common.BytesToAddress(crypto.Keccak256([]byte("rollgate/devnet/layerzero/SendUln302"))[12:])
	// EVMTreasury receives the messaging fees paid on Ethereum (the DVN's and executor's
	// pay, which the devnet does not split).
	EVMTreasury = common.BytesToAddress(crypto.Keccak256([]byte("rollgate/devnet/layerzero/treasury"))[12:])
)

// EVMNativeFee is the messaging fee on Ethereum, in wei (1e-4 ETH), whatever the message.
var EVMNativeFee = big.NewInt(100_000_000_000_000)

// Event topics (ILayerZeroEndpointV2.sol, IOFT.sol).
var (
	TopicPacketSent      = crypto.Keccak256Hash([]byte("PacketSent(bytes,bytes,address)"))
	TopicPacketVerified  = crypto.Keccak256Hash([]byte("PacketVerified((uint32,bytes32,uint64),address,bytes32)"))
	TopicPacketDelivered = crypto.Keccak256Hash([]byte("PacketDelivered((uint32,bytes32,uint64),address)"))
	TopicOFTSent         = crypto.Keccak256Hash([]byte("OFTSent(bytes32,uint32,address,uint256,uint256)"))
	TopicOFTReceived     = crypto.Keccak256Hash([]byte("OFTReceived(bytes32,uint32,address,uint256)"))
)

const sendParamJSON = `{"name":"_sendParam","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]}`
const feeJSON = `{"name":"fee","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]}`
const originJSON = `{"name":"_origin","type":"tuple","components":[{"name":"srcEid","type":"uint32"},{"name":"sender","type":"bytes32"},{"name":"nonce","type":"uint64"}]}`

// adapterABI is the part of IOFT / OApp the adapter answers.
var adapterABI = ethereum.MustABI(`[
{"type":"function","name":"send","stateMutability":"payable","inputs":[` + sendParamJSON + `,` + feeJSON + `,{"name":"_refundAddress","type":"address"}],
 "outputs":[{"name":"msgReceipt","type":"tuple","components":[{"name":"guid","type":"bytes32"},{"name":"nonce","type":"uint64"},` + feeJSON + `]},
            {"name":"oftReceipt","type":"tuple","components":[{"name":"amountSentLD","type":"uint256"},{"name":"amountReceivedLD","type":"uint256"}]}]},
{"type":"function","name":"quoteSend","stateMutability":"view","inputs":[` + sendParamJSON + `,{"name":"_payInLzToken","type":"bool"}],"outputs":[` + feeJSON + `]},
{"type":"function","name":"quoteOFT","stateMutability":"view","inputs":[` + sendParamJSON + `],
 "outputs":[{"name":"limit","type":"tuple","components":[{"name":"minAmountLD","type":"uint256"},{"name":"maxAmountLD","type":"uint256"}]},
            {"name":"feeDetails","type":"tuple[]","components":[{"name":"feeAmountLD","type":"int256"},{"name":"description","type":"string"}]},
            {"name":"receipt","type":"tuple","components":[{"name":"amountSentLD","type":"uint256"},{"name":"amountReceivedLD","type":"uint256"}]}]},
{"type":"function","name":"token","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"approvalRequired","stateMutability":"view","inputs":[],"outputs":[{"type":"bool"}]},
{"type":"function","name":"sharedDecimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
{"type":"function","name":"endpoint","stateMutability":"view","inputs":[],"outputs":[{"type":"address"}]},
{"type":"function","name":"peers","stateMutability":"view","inputs":[{"name":"eid","type":"uint32"}],"outputs":[{"type":"bytes32"}]},
{"type":"function","name":"lzReceive","stateMutability":"payable","inputs":[` + originJSON + `,{"name":"_guid","type":"bytes32"},{"name":"_message","type":"bytes"},{"name":"_executor","type":"address"},{"name":"_extraData","type":"bytes"}],"outputs":[]}
]`)

// endpointABI is the part of EndpointV2 the devnet's DVN/executor and clients call.
var endpointABI = ethereum.MustABI(`[
{"type":"function","name":"eid","stateMutability":"view","inputs":[],"outputs":[{"type":"uint32"}]},
{"type":"function","name":"verify","inputs":[` + originJSON + `,{"name":"_receiver","type":"address"},{"name":"_payloadHash","type":"bytes32"}],"outputs":[]},
{"type":"function","name":"lzReceive","stateMutability":"payable","inputs":[` + originJSON + `,{"name":"_receiver","type":"address"},{"name":"_guid","type":"bytes32"},{"name":"_message","type":"bytes"},{"name":"_extraData","type":"bytes"}],"outputs":[]},
{"type":"function","name":"inboundPayloadHash","stateMutability":"view","inputs":[{"name":"_receiver","type":"address"},{"name":"_srcEid","type":"uint32"},{"name":"_sender","type":"bytes32"},{"name":"_nonce","type":"uint64"}],"outputs":[{"type":"bytes32"}]},
{"type":"function","name":"outboundNonce","stateMutability":"view","inputs":[{"name":"_sender","type":"address"},{"name":"_dstEid","type":"uint32"},{"name":"_receiver","type":"bytes32"}],"outputs":[{"type":"uint64"}]}
]`)

// The event data layouts (non-indexed fields).
var (
	packetSentData      = abiArgs("bytes", "bytes", "address")
	packetVerifiedData  = abiArgs("(uint32,bytes32,uint64)", "address", "bytes32")
	packetDeliveredData = abiArgs("(uint32,bytes32,uint64)", "address")
	oftSentData         = abiArgs("uint32", "uint256", "uint256")
	oftReceivedData     = abiArgs("uint32", "uint256")
)

func abiArgs(types ...string) abi.Arguments {
	var out abi.Arguments
	for _, t := range types {
		var typ abi.Type
		var err error
		if t[0] == '(' {
			typ, err = abi.NewType("tuple", "", []abi.ArgumentMarshaling{{Name: "srcEid", Type: "uint32"}, {Name: "sender", Type: "bytes32"}, {Name: "nonce", Type: "uint64"}})
		} else {
			typ, err = abi.NewType(t, "", nil)
		}
		if err != nil {
			panic("layerzero: abi type " + t + ": " + err.Error())
		}
		out = append(out, abi.Argument{Type: typ})
	}
	return out
}

// Origin is the (srcEid, sender, nonce) of an inbound packet.
type Origin struct {
	SrcEid uint32   `abi:"srcEid"`
	Sender [32]byte `abi:"sender"`
	Nonce  uint64   `abi:"nonce"`
}

type sendParam struct {
	DstEid       uint32   `abi:"dstEid"`
	To           [32]byte `abi:"to"`
	AmountLD     *big.Int `abi:"amountLD"`
	MinAmountLD  *big.Int `abi:"minAmountLD"`
	ExtraOptions []byte   `abi:"extraOptions"`
	ComposeMsg   []byte   `abi:"composeMsg"`
	OftCmd       []byte   `abi:"oftCmd"`
}

type messagingFee struct {
	NativeFee  *big.Int `abi:"nativeFee"`
	LzTokenFee *big.Int `abi:"lzTokenFee"`
}

// Endpoint is the Ethereum chain's EndpointV2: outbound nonces per path, the DVN's
// verifications (only the devnet's DVN may verify) and lzReceive, which anyone may call
// for a verified packet, as LayerZero's permissionless executor design lets them.
type Endpoint struct {
	DVN common.Address
	// OApps are the OApps that receive through it (the adapter), by address.
	OApps map[common.Address]OApp
}

// OApp is an application the endpoint delivers to.
type OApp interface {
	receive(x *ethereum.Exec, o Origin, guid [32]byte, message []byte) error
}

func nonceKey(sender common.Address, dst uint32, receiver [32]byte) string {
	return fmt.Sprintf("n/%s/%d/%x", sender.Hex(), dst, receiver)
}

func inboundKey(receiver common.Address, o Origin) string {
	return fmt.Sprintf("in/%s/%d/%x/%d", receiver.Hex(), o.SrcEid, o.Sender, o.Nonce)
}

// send assigns the path's next nonce, emits PacketSent and returns the packet.
func (e *Endpoint) send(x *ethereum.Exec, sender common.Address, dst uint32, receiver [32]byte, message, options []byte) (Packet, error) {
	k := nonceKey(sender, dst, receiver)
	n := x.State().Big(EVMEndpoint, k).Uint64() + 1
	x.SetBig(EVMEndpoint, k, new(big.Int).SetUint64(n))
	p := Packet{Nonce: n, SrcEID: EIDEthereum, Sender: Bytes32(sender), DstEID: dst, Receiver: receiver, Message: message}
	p.GUID = GUID(n, p.SrcEID, p.Sender, dst, receiver)
	data, err := packetSentData.Pack(p.Encode(), options, EVMSendLibrary)
	if err != nil {
		return p, err
	}
	x.Emit(EVMEndpoint, []common.Hash{TopicPacketSent}, data)
	return p, nil
}

// Call implements ethereum.Contract.
func (e *Endpoint) Call(x *ethereum.Exec, from common.Address, _ *big.Int, input []byte) ([]byte, error) {
	m, args, err := ethereum.Method(endpointABI, input)
	if err != nil {
		return nil, err
	}
	switch m.Name {
	case "eid":
		return m.Outputs.Pack(EIDEthereum)
	case "outboundNonce":
		return m.Outputs.Pack(x.State().Big(EVMEndpoint, nonceKey(args[0].(common.Address), args[1].(uint32), args[2].([32]byte))).Uint64())
	case "inboundPayloadHash":
		o := Origin{SrcEid: args[1].(uint32), Sender: args[2].([32]byte), Nonce: args[3].(uint64)}
		return m.Outputs.Pack(common.HexToHash(x.State().Get(EVMEndpoint, inboundKey(args[0].(common.Address), o))))
	case "verify":
		if from != e.DVN {
			return nil, ethereum.ErrReverted // LZ_InvalidReceiveLibrary: only the receive library verifies
		}
		x.UseGas(30_000)
		o := originOf(args[0])
		recv, hash := args[1].(common.Address), args[2].([32]byte)
		if _, ok := e.OApps[recv]; !ok {
			return nil, ethereum.ErrReverted
		}
		x.Set(EVMEndpoint, inboundKey(recv, o), common.Hash(hash).Hex())
		data, err := packetVerifiedData.Pack(o, recv, hash)
		if err != nil {
			return nil, err
		}
		x.Emit(EVMEndpoint, []common.Hash{TopicPacketVerified}, data)
		return nil, nil
	case "lzReceive":
		x.UseGas(60_000)
		o := originOf(args[0])
		recv, guid, msg := args[1].(common.Address), args[2].([32]byte), args[3].([]byte)
		app, ok := e.OApps[recv]
		k := inboundKey(recv, o)
		if !ok || x.State().Get(EVMEndpoint, k) != common.Hash(PayloadHash(guid, msg)).Hex() {
			return nil, ethereum.ErrReverted // LZ_PayloadHashNotFound
		}
		x.Set(EVMEndpoint, k, "") // _clearPayload: delivered once
		if err := app.receive(x, o, guid, msg); err != nil {
			return nil, err
		}
		data, err := packetDeliveredData.Pack(o, recv)
		if err != nil {
			return nil, err
		}
		x.Emit(EVMEndpoint, []common.Hash{TopicPacketDelivered}, data)
		return nil, nil
	}
	return nil, ethereum.ErrReverted
}

func originOf(v any) Origin { return *abi.ConvertType(v, new(Origin)).(*Origin) }

// Adapter is the USDT OFT adapter (OFTAdapter.sol): send locks the sender's USDT in the
// adapter (transferFrom, so it needs the allowance) and sends the OFT message to its peer;
// receiving unlocks USDT to the recipient.
type Adapter struct {
	Token    *ethereum.ERC20
	Endpoint *Endpoint
	// Peers are the OApps on other endpoints, by eid (the L1's OFT).
	Peers map[uint32][32]byte
}

// Call implements ethereum.Contract.
func (a *Adapter) Call(x *ethereum.Exec, from common.Address, value *big.Int, input []byte) ([]byte, error) {
	m, args, err := ethereum.Method(adapterABI, input)
	if err != nil {
		return nil, err
	}
	switch m.Name {
	case "token":
		return m.Outputs.Pack(a.Token.Address)
	case "approvalRequired":
		return m.Outputs.Pack(true)
	case "sharedDecimals":
		return m.Outputs.Pack(uint8(SharedDecimals))
	case "endpoint":
		return m.Outputs.Pack(EVMEndpoint)
	case "peers":
		return m.Outputs.Pack(a.Peers[args[0].(uint32)])
	case "quoteSend":
		sp := sendParamOf(args[0])
		if _, ok := a.Peers[sp.DstEid]; !ok || args[1].(bool) {
			return nil, ethereum.ErrReverted // NoPeer / LZ_LzTokenUnavailable
		}
		return m.Outputs.Pack(messagingFee{NativeFee: new(big.Int).Set(EVMNativeFee), LzTokenFee: new(big.Int)})
	case "quoteOFT":
		sp := sendParamOf(args[0])
		limit := struct {
			MinAmountLD *big.Int `abi:"minAmountLD"`
			MaxAmountLD *big.Int `abi:"maxAmountLD"`
		}{new(big.Int), new(big.Int).SetUint64(^uint64(0))}
		fees := []struct {
			FeeAmountLD *big.Int `abi:"feeAmountLD"`
			Description string   `abi:"description"`
		}{}
		rc := struct {
			AmountSentLD     *big.Int `abi:"amountSentLD"`
			AmountReceivedLD *big.Int `abi:"amountReceivedLD"`
		}{sp.AmountLD, sp.AmountLD}
		return m.Outputs.Pack(limit, fees, rc)
	case "send":
		return a.send(x, m, from, value, sendParamOf(args[0]), feeOf(args[1]), args[2].(common.Address))
	case "lzReceive":
		// Only the endpoint delivers (OAppReceiver: OnlyEndpoint).
		return nil, ethereum.ErrReverted
	}
	return nil, ethereum.ErrReverted
}

func (a *Adapter) send(x *ethereum.Exec, m *abi.Method, from common.Address, value *big.Int, sp sendParam, fee messagingFee, refund common.Address) ([]byte, error) {
	peer, ok := a.Peers[sp.DstEid]
	if !ok || sp.AmountLD.Sign() <= 0 || !sp.AmountLD.IsUint64() {
		return nil, ethereum.ErrReverted
	}
	if sp.AmountLD.Cmp(sp.MinAmountLD) < 0 {
		return nil, ethereum.ErrReverted // SlippageExceeded
	}
	if fee.LzTokenFee.Sign() != 0 || fee.NativeFee.Cmp(EVMNativeFee) < 0 || value.Cmp(fee.NativeFee) < 0 {
		return nil, ethereum.ErrReverted // LZ_InsufficientFee
	}
	x.UseGas(80_000)
	if !a.allowanceMove(x, from, sp.AmountLD) {
		return nil, ethereum.ErrReverted // ERC20InsufficientAllowance / Balance
	}
	// The fee goes to the workers, the rest of msg.value back to the refund address.
	if !x.TransferETH(EVMAdapter, EVMTreasury, EVMNativeFee) ||
		!x.TransferETH(EVMAdapter, refund, new(big.Int).Sub(value, EVMNativeFee)) {
		return nil, ethereum.ErrReverted
	}
	p, err := a.Endpoint.send(x, EVMAdapter, sp.DstEid, peer, OFTComposeMessage(sp.To, sp.AmountLD.Uint64(), Bytes32(from), sp.ComposeMsg), sp.ExtraOptions)
	if err != nil {
		return nil, err
	}
	data, err := oftSentData.Pack(sp.DstEid, sp.AmountLD, sp.AmountLD)
	if err != nil {
		return nil, err
	}
	x.Emit(EVMAdapter, []common.Hash{TopicOFTSent, p.GUID, ethereum.AddrTopic(from)}, data)
	receipt := struct {
		GUID  [32]byte     `abi:"guid"`
		Nonce uint64       `abi:"nonce"`
		Fee   messagingFee `abi:"fee"`
	}{p.GUID, p.Nonce, messagingFee{NativeFee: EVMNativeFee, LzTokenFee: new(big.Int)}}
	rc := struct {
		AmountSentLD     *big.Int `abi:"amountSentLD"`
		AmountReceivedLD *big.Int `abi:"amountReceivedLD"`
	}{sp.AmountLD, sp.AmountLD}
	return m.Outputs.Pack(receipt, rc)
}

// allowanceMove is the adapter's safeTransferFrom(sender → adapter) on the token.
func (a *Adapter) allowanceMove(x *ethereum.Exec, from common.Address, v *big.Int) bool {
	in, err := ethereum.ERC20ABI.Pack("transferFrom", from, EVMAdapter, v)
	if err != nil {
		return false
	}
	_, err = x.Call(EVMAdapter, a.Token.Address, nil, in)
	return err == nil
}

// receive unlocks the amount to the recipient and emits OFTReceived.
func (a *Adapter) receive(x *ethereum.Exec, o Origin, guid [32]byte, message []byte) error {
	if peer, ok := a.Peers[o.SrcEid]; !ok || peer != o.Sender {
		return ethereum.ErrReverted // OnlyPeer
	}
	to32, amt, err := DecodeOFTMessage(message)
	if err != nil {
		return ethereum.ErrReverted
	}
	to := common.BytesToAddress(to32[12:])
	v := new(big.Int).SetUint64(amt)
	if !a.Token.Move(x, EVMAdapter, to, v) {
		return ethereum.ErrReverted
	}
	data, err := oftReceivedData.Pack(o.SrcEid, v)
	if err != nil {
		return err
	}
	x.Emit(EVMAdapter, []common.Hash{TopicOFTReceived, guid, ethereum.AddrTopic(to)}, data)
	return nil
}

func sendParamOf(v any) sendParam { return *abi.ConvertType(v, new(sendParam)).(*sendParam) }

func feeOf(v any) messagingFee { return *abi.ConvertType(v, new(messagingFee)).(*messagingFee) }

// EndpointVerifyCall is the DVN's verify calldata.
func EndpointVerifyCall(o Origin, receiver common.Address, payloadHash [32]byte) ([]byte, error) {
	return endpointABI.Pack("verify", o, receiver, payloadHash)
}

// EndpointReceiveCall is the executor's lzReceive calldata.
func EndpointReceiveCall(o Origin, receiver common.Address, guid [32]byte, message []byte) ([]byte, error) {
	return endpointABI.Pack("lzReceive", o, receiver, guid, message, []byte{})
}
