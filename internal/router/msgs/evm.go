package msgs

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// The two EVM calls the router emits: ERC-20 transfer and the LayerZero v2 OFT send
// (SendParam, MessagingFee, refund address).
const evmABI = `[
{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]},
{"type":"function","name":"send","stateMutability":"payable","inputs":[
 {"name":"_sendParam","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]},
 {"name":"_fee","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]},
 {"name":"_refundAddress","type":"address"}],"outputs":[]}
]`

var parsedABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(evmABI))
	if err != nil {
		panic(err) // constant input: a failure is a programming error caught by every test
	}
	return a
}()

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

func (b Builder) evmTx(req Request, p *plan, i int, signer string) (*EVMTx, error) {
	op := p.ops[i]
	chain := b.Reg.Chain(op.FromChainID())
	amount := p.amounts[i]
	tx := &EVMTx{ChainID: chain.ID, SignerAddress: signer, RequiredERC20Approvals: []ERC20Approval{}}
	switch {
	case op.BankSend != nil:
		to := req.AddressList[p.toPos[i]]
		a := chain.Asset(op.BankSend.Denom)
		if a.TokenContract == "" {
			tx.To, tx.Value = to, amount.Dec()
			return tx, nil
		}
		data, err := parsedABI.Pack("transfer", hexAddr(to), amount.ToBig())
		if err != nil {
			return nil, fmt.Errorf("msgs: pack transfer: %w", err)
		}
		tx.To, tx.Value, tx.Data = a.TokenContract, "0", hex.EncodeToString(data)
		return tx, nil
	case op.LayerZeroTransfer != nil:
		lz := op.LayerZeroTransfer
		dst := b.Reg.Chain(lz.ToChainID)
		to, err := recipient32(dst, req.AddressList[p.toPos[i]])
		if err != nil {
			return nil, addrErr(p.toPos[i], dst.ID, err)
		}
		fee := b.LayerZeroFee[chain.ID]
		if fee == "" {
			fee = "0"
		}
		nativeFee, ok := new(big.Int).SetString(fee, 10)
		if !ok {
			return nil, fmt.Errorf("msgs: layer zero fee %q for %s is not an integer", fee, chain.ID)
		}
		slip, err := parseSlippage(req.SlippageTolerancePercent)
		if err != nil {
			return nil, err
		}
		minLD := applySlippage(amount, slip)
		data, err := parsedABI.Pack("send",
			sendParam{DstEid: lz.DestinationEndpointID, To: to, AmountLD: amount.ToBig(), MinAmountLD: minLD.ToBig(),
				ExtraOptions: []byte{}, ComposeMsg: []byte{}, OftCmd: []byte{}},
			messagingFee{NativeFee: nativeFee, LzTokenFee: new(big.Int)},
			hexAddr(signer))
		if err != nil {
			return nil, fmt.Errorf("msgs: pack send: %w", err)
		}
		src := chain.Asset(lz.DenomIn)
		tx.To, tx.Value, tx.Data = lz.SourceOFTContractAddress, nativeFee.String(), hex.EncodeToString(data)
		if src.LZ.NeedsApproval && src.TokenContract != "" {
			tx.RequiredERC20Approvals = append(tx.RequiredERC20Approvals, ERC20Approval{TokenContract: src.TokenContract,
				Spender: lz.SourceOFTContractAddress, Amount: amount.Dec()})
		}
		return tx, nil
	}
	return nil, route.Invalidf(ReasonUnsupportedOp, "operation %d cannot run on EVM chain %s", i, chain.ID)
}
