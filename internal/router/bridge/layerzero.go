package bridge

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"

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
// assets name each other as peers. Only EVM chains send: Build makes the OFT send as an EVM
// call only.
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
	if c.Type == registry.ChainTypeEVM {
		out = append(out, Edge{From: here, To: peer, Via: Via{Kind: KindLayerZero, OFT: a.LZ.OFT, Seconds: secs}})
	}
	if pc.Type == registry.ChainTypeEVM {
		out = append(out, Edge{From: peer, To: here, Via: Via{Kind: KindLayerZero, OFT: pa.LZ.OFT, Seconds: secs}})
	}
	return out
}

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
	chain, evm := onEVM(l)
	if !evm {
		return Message{}, unsupported("LayerZero sends from Cosmos chain %s are not supported; only EVM sources", chain.ID)
	}
	z := l.Ops[0].LayerZeroTransfer
	dst := l.Reg.Chain(z.ToChainID)
	to, err := recipient32(dst, l.Receivers[0])
	if err != nil {
		return Message{}, &AddressError{ChainID: dst.ID, Err: err}
	}
	f := l.Fee
	if f == "" {
		f = "0"
	}
	nativeFee, ok := new(big.Int).SetString(f, 10)
	if !ok {
		return Message{}, fmt.Errorf("msgs: layer zero fee %q for %s is not an integer", f, chain.ID)
	}
	data, err := sendABI.Pack("send",
		sendParam{DstEid: z.DestinationEndpointID, To: to, AmountLD: l.Amount.ToBig(), MinAmountLD: l.MinAmount.ToBig(),
			ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}},
		messagingFee{NativeFee: nativeFee, LzTokenFee: new(big.Int)},
		common.HexToAddress(l.Sender))
	if err != nil {
		return Message{}, fmt.Errorf("msgs: pack send: %w", err)
	}
	call := &EVMCall{To: z.SourceOFTContractAddress, Value: nativeFee.String(), Data: data}
	if src := chain.Asset(z.DenomIn); src.LZ.NeedsApproval && src.TokenContract != "" {
		call.Approvals = append(call.Approvals, Approval{TokenContract: src.TokenContract, Spender: z.SourceOFTContractAddress, Amount: l.Amount.Dec()})
	}
	return Message{EVM: call}, nil
}

// Fees: the messaging fee of the send, charged on top of the amount.
func (layerZero) Fees(env Env, i int, op Operation) []Fee {
	z := op.LayerZeroTransfer
	oi := i
	return []Fee{{BridgeID: NameLayerZero, Amount: fee(env.Est, z.FromChainID), OriginAsset: z.MessagingFeeAsset,
		ChainID: z.FromChainID, TxIndex: op.TxIndex, OperationIndex: &oi, FeeBehavior: "FEE_BEHAVIOR_ADDITIONAL"}}
}

// Watch: nothing yet (the devnet runs no LayerZero endpoint to emit its events).
func (layerZero) Watch() []Watch { return nil }
