package bridge

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"

	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// LayerZeroTransfer is an OFT send.
type LayerZeroTransfer struct {
	FromChainID              string `json:"from_chain_id"`
	ToChainID                string `json:"to_chain_id"`
	DenomIn                  string `json:"denom_in"`
	DenomOut                 string `json:"denom_out"`
	SourceOFTContractAddress string `json:"source_oft_contract_address"`
	DestinationEndpointID    uint32 `json:"destination_endpoint_id"`
	MessagingFeeAsset        Asset  `json:"messaging_fee_asset"`
	MessagingFeeAmount       string `json:"messaging_fee_amount"`
	MessagingFeeAmountUSD    string `json:"messaging_fee_amount_usd"`
	BridgeID                 string `json:"bridge_id"`
}

func (z *LayerZeroTransfer) withDenoms(o *Operation, in, out string) {
	c := *z
	c.DenomIn, c.DenomOut = or(in, c.DenomIn), or(out, c.DenomOut)
	o.LayerZeroTransfer = &c
}

func (z *LayerZeroTransfer) hop() Hop {
	return Hop{Bridge: LayerZero, FromChainID: z.FromChainID, ToChainID: z.ToChainID, DenomIn: z.DenomIn, DenomOut: z.DenomOut, Label: "layerzero"}
}

// layerZero is a LayerZero v2 OFT send between two chains with endpoints whose registry
// assets name each other as peers. The send is the user's own tx on the source chain, in the
// source VM's form (Build):
//
//   - an EVM chain (an Ethereum chain; chain_type evm): the OFT's send(SendParam,
//     MessagingFee, refund) as an evm_tx, value = the native fee (IOFT.sol);
//   - a Move chain (the L1, a minimove rollup): /initia.move.v1.MsgExecute of
//     <OFT>::oft::send_withdraw(dst_eid u32, to vector<u8>, amount_ld u64, min_amount_ld u64,
//     extra_options, compose_message, oft_cmd vector<u8>, native_fee u64, zro_fee u64), BCS
//     arguments (LayerZero-Labs/devtools: examples/oft-move/sources/oft.move send_withdraw);
//   - an EVM rollup (minievm): /minievm.evm.v1.MsgCall of the same send as the EVM chain's,
//     after a MsgCall of approve when the OFT is an adapter.
//
// The native fee is what the source endpoint quotes (router/msgs quotes it at /msgs time over
// the chain's own API and passes it in Leg.Fee). A send with Leg.Compose pays the destination's
// composer instead of the recipient and carries its compose message, with an executor
// lzCompose option asking for the compose (LayerZero v2: SendParam.composeMsg; OptionsBuilder
// addExecutorLzComposeOption); the composer acts on arrival in the executor's lz_compose (an
// OPinit deposit, so Ethereum → L1 → a rollup is one tx).
type layerZero struct{}

func (layerZero) Name() string  { return NameLayerZero }
func (layerZero) Title() string { return "LayerZero" }
func (layerZero) Kinds() []Kind { return []Kind{KindLayerZero} }

// Edges: both ways between an OFT and its peer, from each side that is an EVM chain.
func (layerZero) Edges(g Graph, c *registry.Chain, a *registry.Asset) []Edge {
	if a.LZ == nil || a.LZ.OFT == "" || a.LZ.PeerChainID == "" || c.LZEndpointID == 0 {
		return nil
	}
	pc, pa, ok := g.Node(a.LZ.PeerChainID, a.LZ.PeerDenom)
	if !ok || pc.LZEndpointID == 0 || pa.LZ == nil || pa.LZ.OFT == "" {
		return nil
	}
	secs := g.Estimates().LayerZeroSeconds
	here, peer := Endpoint{c.ID, a.Denom}, Endpoint{pc.ID, pa.Denom}
	var out []Edge
	if lzSender(c) != lzNone {
		out = append(out, Edge{From: here, To: peer, Via: Via{Kind: KindLayerZero, OFT: a.LZ.OFT, Seconds: secs}})
	}
	if lzSender(pc) != lzNone {
		out = append(out, Edge{From: peer, To: here, Via: Via{Kind: KindLayerZero, OFT: pa.LZ.OFT, Seconds: secs}})
	}
	return out
}

// How a chain's user sends an OFT.
type lzVM int

const (
	lzNone lzVM = iota
	lzEVMChain
	lzMove
	lzMiniEVM
)

// lzSender is the form of an OFT send from chain c (lzNone: the router builds none there).
func lzSender(c *registry.Chain) lzVM {
	switch {
	case c.Type == registry.ChainTypeEVM:
		return lzEVMChain
	case c.L1 || c.MinitiaType == "minimove":
		return lzMove
	case c.MinitiaType == "minievm":
		return lzMiniEVM
	}
	return lzNone
}

// LayerZeroMove reports whether a chain sends OFTs with a Move MsgExecute (its fee is quoted
// by the OFT's quote_send view).
func LayerZeroMove(c *registry.Chain) bool { return lzSender(c) == lzMove }

// fee is the messaging fee configured for a source chain ("0" when none).
func fee(est Estimates, chainID string) string {
	if f := est.LayerZeroFee[chainID]; f != "" {
		return f
	}
	return "0"
}

// Render: the OFT send, and its messaging fee charged on top of the amount.
func (layerZero) Render(env Env, e Via, h Hop) Rendered {
	from, to := env.Reg.Chain(h.FromChainID), env.Reg.Chain(h.ToChainID)
	amt, asset := fee(env.Est, from.ID), feeAsset(from)
	oi := env.Index
	return Rendered{
		Op: Operation{TxIndex: h.TxIndex, AmountIn: h.AmountIn, AmountOut: h.AmountOut,
			LayerZeroTransfer: &LayerZeroTransfer{FromChainID: from.ID, ToChainID: to.ID, DenomIn: h.DenomIn,
				DenomOut: h.DenomOut, SourceOFTContractAddress: e.OFT, DestinationEndpointID: to.LZEndpointID,
				MessagingFeeAsset: asset, MessagingFeeAmount: amt, MessagingFeeAmountUSD: "", BridgeID: NameLayerZero}},
		Fees: []Fee{{BridgeID: NameLayerZero, Amount: amt, OriginAsset: asset, ChainID: from.ID, TxIndex: h.TxIndex,
			OperationIndex: &oi, FeeBehavior: "FEE_BEHAVIOR_ADDITIONAL"}},
	}
}

// feeAsset is the token a chain's fees are paid in: its first fee token, else its native coin.
func feeAsset(c *registry.Chain) Asset {
	if len(c.FeeTokens) > 0 {
		if a := c.Asset(c.FeeTokens[0].Denom); a != nil {
			return AssetOf(a)
		}
	}
	for _, a := range c.Assets {
		if strings.HasSuffix(a.Denom, "-native") {
			return AssetOf(a)
		}
	}
	return Asset{Denom: c.ID + "-native", ChainID: c.ID, OriginDenom: c.ID + "-native", OriginChainID: c.ID, IsEVM: c.Type == registry.ChainTypeEVM}
}

// Check: the input is an OFT towards the destination, with the registry's contract and
// endpoint id.
func (layerZero) Check(reg *registry.Registry, i int, op Operation, _ string) (string, error) {
	from, to, in, out, err := assets(reg, i, op)
	if err != nil {
		return "", err
	}
	z := op.LayerZeroTransfer
	if in.LZ == nil || in.LZ.PeerChainID == "" && (out.LZ == nil || out.LZ.PeerChainID != from.ID) {
		return "", invalid("operation %d: %s is not a LayerZero OFT towards %s", i, in.Denom, to.ID)
	}
	if !strings.EqualFold(z.SourceOFTContractAddress, in.LZ.OFT) || z.DestinationEndpointID != to.LZEndpointID {
		return "", invalid("operation %d: OFT contract or endpoint id do not match the registry", i)
	}
	return out.Path, nil
}

// Compose is a compose message a LayerZero send carries for a composer on its destination.
type Compose struct {
	// Composer is the composer's address there (hex): the send pays it.
	Composer string
	// Msg is the SendParam.composeMsg; Gas the executor's lzCompose gas (its option).
	Msg []byte
	Gas uint64
}

// ComposeGas is the lzCompose gas asked of the executor for the OPinit composer's deposit.
const ComposeGas = 200_000

// OPinitComposeMsg is the OPinit composer's composeMsg (rollgate's format, the devnet L1's
// opinit_composer reads it): bridge_id u64 ‖ to bytes32 (the recipient's account on the
// rollup, right-aligned) ‖ data (the deposit's hook), big-endian as LayerZero's codecs.
func OPinitComposeMsg(bridgeID uint64, to [32]byte, data []byte) []byte {
	b := binary.BigEndian.AppendUint64(nil, bridgeID)
	b = append(b, to[:]...)
	return append(b, data...)
}

// composeOptions are type-3 options with one executor lzCompose option: uint16 3, then
// workerId 1 ‖ size u16 ‖ optionType 3 ‖ index u16 ‖ gas u128 (LayerZero v2 OptionsBuilder,
// ExecutorOptions).
func composeOptions(index uint16, gas uint64) []byte {
	b := binary.BigEndian.AppendUint16(nil, 3)
	b = append(b, 1)
	b = binary.BigEndian.AppendUint16(b, 1+2+16)
	b = append(b, 3)
	b = binary.BigEndian.AppendUint16(b, index)
	b = append(b, make([]byte, 8)...)
	return binary.BigEndian.AppendUint64(b, gas)
}

// LayerZeroSend is what a leg's OFT send names on dst: the 32-byte recipient (the composer
// when the leg composes), the executor options and the compose message (both empty
// without a compose).
func LayerZeroSend(dst *registry.Chain, l Leg) (to [32]byte, options, composeMsg []byte, err error) {
	if l.Compose == nil {
		to, err = recipient32(dst, l.Receivers[0])
		if err != nil {
			return to, nil, nil, &AddressError{ChainID: dst.ID, Err: err}
		}
		return to, []byte{}, []byte{}, nil
	}
	raw := strings.TrimPrefix(l.Compose.Composer, "0x")
	if len(raw)%2 == 1 {
		raw = "0" + raw
	}
	b, err := hex.DecodeString(raw)
	if err != nil || len(b) > 32 {
		return to, nil, nil, fmt.Errorf("msgs: composer %q on %s is not an address", l.Compose.Composer, dst.ID)
	}
	copy(to[32-len(b):], b)
	return to, composeOptions(0, l.Compose.Gas), l.Compose.Msg, nil
}

// sendABI is the LayerZero v2 OFT send (SendParam, MessagingFee, refund address).
var sendABI = mustABI(`[{"type":"function","name":"send","stateMutability":"payable","inputs":[
 {"name":"_sendParam","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]},
 {"name":"_fee","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]},
 {"name":"_refundAddress","type":"address"}],"outputs":[]}]`)

type sendParam struct {
	DstEid       uint32
	To           [32]byte
	AmountLD     *big.Int
	MinAmountLD  *big.Int
	ExtraOptions []byte
	ComposeMsg   []byte
	OftCmd       []byte
}

type messagingFee struct {
	NativeFee  *big.Int
	LzTokenFee *big.Int
}

// Recipient32 is the 32-byte LayerZero recipient of addr on chain c.
func Recipient32(c *registry.Chain, addr string) ([32]byte, error) { return recipient32(c, addr) }

// recipient32 is the 32-byte LayerZero recipient: the address bytes right-aligned (bech32 or
// hex), as OFTs on Move and EVM chains decode it.
func recipient32(c *registry.Chain, addr string) ([32]byte, error) {
	var out [32]byte
	var raw []byte
	if c.Type == registry.ChainTypeEVM {
		b, err := hex.DecodeString(strings.TrimPrefix(addr, "0x"))
		if err != nil {
			return out, err
		}
		raw = b
	} else {
		_, b, err := bech32.DecodeToBase256(addr)
		if err != nil {
			return out, err
		}
		raw = b
	}
	if len(raw) > 32 {
		return out, fmt.Errorf("address longer than 32 bytes")
	}
	copy(out[32-len(raw):], raw)
	return out, nil
}

// Build is the OFT's send(SendParam, MessagingFee, refund) paying the messaging fee as value,
// with the ERC-20 approval the OFT needs when it is an adapter over a token.
func (layerZero) Build(l Leg) (Message, error) {
	chain := l.Reg.Chain(l.Ops[0].Hop().FromChainID)
	vm := lzSender(chain)
	if vm == lzNone {
		return Message{}, unsupported("LayerZero sends from %s are not supported: the router builds them on EVM and Move chains", chain.ID)
	}
	z := l.Ops[0].LayerZeroTransfer
	dst := l.Reg.Chain(z.ToChainID)
	to, options, composeMsg, err := LayerZeroSend(dst, l)
	if err != nil {
		return Message{}, err
	}
	f := l.Fee
	if f == "" {
		f = "0"
	}
	nativeFee, ok := new(big.Int).SetString(f, 10)
	if !ok {
		return Message{}, fmt.Errorf("msgs: layer zero fee %q for %s is not an integer", f, chain.ID)
	}
	if vm == lzMove {
		return moveSend(l, z, to, options, composeMsg, nativeFee)
	}
	data, err := sendABI.Pack("send",
		sendParam{DstEid: z.DestinationEndpointID, To: to, AmountLD: l.Amount.ToBig(), MinAmountLD: l.MinAmount.ToBig(),
			ExtraOptions: options, ComposeMsg: composeMsg, OftCmd: []byte{}},
		messagingFee{NativeFee: nativeFee, LzTokenFee: new(big.Int)},
		common.HexToAddress(l.Sender))
	if err != nil {
		return Message{}, fmt.Errorf("msgs: pack send: %w", err)
	}
	call := &EVMCall{To: z.SourceOFTContractAddress, Value: nativeFee.String(), Data: data}
	src := chain.Asset(z.DenomIn)
	if src.LZ.NeedsApproval && src.TokenContract != "" {
		call.Approvals = append(call.Approvals, Approval{TokenContract: src.TokenContract, Spender: z.SourceOFTContractAddress, Amount: l.Amount.Dec()})
	}
	if vm == lzMiniEVM {
		return miniEVMSend(l, call)
	}
	return Message{EVM: call}, nil
}

// TypeMsgExecute and TypeMsgCall are the Move and minievm calls' type URLs.
const (
	TypeMsgExecute = "/initia.move.v1.MsgExecute"
	TypeMsgCall    = "/minievm.evm.v1.MsgCall"
)

// moveSend is the Move OFT's send_withdraw, its arguments BCS-encoded (u32 and u64 little
// endian, vector<u8> as ULEB128 length + bytes).
func moveSend(l Leg, z *LayerZeroTransfer, to [32]byte, options, composeMsg []byte, nativeFee *big.Int) (Message, error) {
	amt, min := l.Amount, l.MinAmount
	if min == nil {
		min = amt
	}
	if !amt.IsUint64() || !nativeFee.IsUint64() {
		return Message{}, invalid("operation %d: the amount and the messaging fee of a Move OFT send are u64", l.First)
	}
	args := [][]byte{
		binary.LittleEndian.AppendUint32(nil, z.DestinationEndpointID),
		bcsBytes(to[:]),
		binary.LittleEndian.AppendUint64(nil, amt.Uint64()),
		binary.LittleEndian.AppendUint64(nil, min.Uint64()),
		bcsBytes(options), bcsBytes(composeMsg), bcsBytes(nil),
		binary.LittleEndian.AppendUint64(nil, nativeFee.Uint64()),
		binary.LittleEndian.AppendUint64(nil, 0),
	}
	return Message{TypeURL: TypeMsgExecute, Cosmos: &movev1.MsgExecute{Sender: l.Sender, ModuleAddress: z.SourceOFTContractAddress,
		ModuleName: "oft", FunctionName: "send_withdraw", Args: args}}, nil
}

// bcsBytes is a BCS vector<u8>.
func bcsBytes(b []byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(b))) // ULEB128, as BCS writes lengths
	return append(out, b...)
}

// miniEVMSend is the EVM call as minievm MsgCalls signed by the rollup's Cosmos account: the
// approval first when the OFT needs one, then the send with the fee as value.
func miniEVMSend(l Leg, call *EVMCall) (Message, error) {
	var msgs []Message
	for _, a := range call.Approvals {
		amt, ok := new(big.Int).SetString(a.Amount, 10)
		if !ok {
			return Message{}, invalid("operation %d: approval amount %q", l.First, a.Amount)
		}
		data, err := approveABI.Pack("approve", common.HexToAddress(a.Spender), amt)
		if err != nil {
			return Message{}, fmt.Errorf("msgs: pack approve: %w", err)
		}
		msgs = append(msgs, Message{TypeURL: TypeMsgCall, Cosmos: &evmv1.MsgCall{Sender: l.Sender, ContractAddr: common.HexToAddress(a.TokenContract).Hex(),
			Input: "0x" + hex.EncodeToString(data), Value: "0"}})
	}
	send := Message{TypeURL: TypeMsgCall, Cosmos: &evmv1.MsgCall{Sender: l.Sender, ContractAddr: common.HexToAddress(call.To).Hex(),
		Input: "0x" + hex.EncodeToString(call.Data), Value: call.Value}}
	if len(msgs) == 0 {
		return send, nil
	}
	first := msgs[0]
	first.Then = append(msgs[1:], send)
	return first, nil
}

var approveABI = mustABI(`[{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`)

// Fees: the messaging fee of the send, charged on top of the amount.
func (layerZero) Fees(env Env, i int, op Operation) []Fee {
	z := op.LayerZeroTransfer
	oi := i
	return []Fee{{BridgeID: NameLayerZero, Amount: fee(env.Est, z.FromChainID), OriginAsset: z.MessagingFeeAsset,
		ChainID: z.FromChainID, TxIndex: op.TxIndex, OperationIndex: &oi, FeeBehavior: "FEE_BEHAVIOR_ADDITIONAL"}}
}

// What the tracker stores of a LayerZero hop, keyed by the packet's GUID (0x + 64 lower-case
// hex digits): the source OFT's OFTSent (EVM log) or OftSent (Move event) starts the hop, the
// destination OFT's OFTReceived / OftReceived ends it. Chains emit these as EVM logs or Move
// events, not as ABCI events of these names: the tracker decodes them (track/layerzero.go)
// into events of type EventLZOFTSent / EventLZOFTReceived.
const (
	EventLZSent = "lzsent" // the OFT's send, key guid
	EventLZRecv = "lzrecv" // the OFT's receive, key guid

	EventLZOFTSent     = "layerzero_oft_sent"
	EventLZOFTReceived = "layerzero_oft_received"

	// A compose on arrival: the destination endpoint's ComposeSent (in the OFT's receive)
	// and ComposeDelivered (in the executor's lz_compose, with what the composer did after
	// it), both keyed by the packet's GUID.
	EventLZComposeSent = "lzcsent"
	EventLZComposed    = "lzcdone"

	EventLZComposeSentEvent      = "layerzero_compose_sent"
	EventLZComposeDeliveredEvent = "layerzero_compose_delivered"
)

// Watch: the OFT's send and its receive, and a compose's sending and delivery, all keyed by
// the GUID.
func (layerZero) Watch() []Watch {
	return []Watch{
		{Event: EventLZOFTSent, Kind: EventLZSent, Key: []string{"guid"}, Starts: true},
		{Event: EventLZOFTReceived, Kind: EventLZRecv, Key: []string{"guid"}},
		{Event: EventLZComposeSentEvent, Kind: EventLZComposeSent, Key: []string{"guid"}},
		{Event: EventLZComposeDeliveredEvent, Kind: EventLZComposed, Key: []string{"guid"}},
	}
}
