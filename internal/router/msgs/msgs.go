// Package msgs turns a route's operations into the signable messages `/v2/fungible/msgs`
// returns: `cosmos_tx` messages whose `msg` is the legacy amino JSON value of the real
// generated protobuf type (txcodec), as InterwovenKit's fromAmino expects — MsgTransfer with
// packet-forward memos, MsgInitiateTokenDeposit carrying the signed op hook,
// MsgInitiateTokenWithdrawal, MsgSend, the Move OFT's MsgExecute send_withdraw and minievm's
// MsgCall of an OFT send — and `evm_tx` calls (ERC-20 transfer, LayerZero OFT send) for EVM
// sources. A LayerZero send's fee is quoted from its source chain when a quoter is set
// (lzquote.go).
//
// Operations come back from clients verbatim, so every one is re-checked against the
// registry (channels, bridge ids, denoms, connectivity, amounts) before a message is built:
// a tampered or stale route becomes a 400 with a reason, never a message that loses funds.
package msgs

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos/btcutil/bech32"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// Machine reasons of this package's errors.
const (
	ReasonInvalidAddress    = "INVALID_ADDRESS"
	ReasonAddressListLength = "ADDRESS_LIST_MISMATCH"
	ReasonInvalidOperations = "INVALID_OPERATIONS"
	ReasonOPHookRequired    = "OP_HOOK_REQUIRED"
	ReasonInvalidOPHook     = "INVALID_OP_HOOK"
	ReasonInvalidSlippage   = "INVALID_SLIPPAGE"
	ReasonInvalidTimeout    = "INVALID_TIMEOUT"
	ReasonUnsupportedOp     = "UNSUPPORTED_OPERATION"
	ReasonAmountOutMismatch = "AMOUNT_OUT_MISMATCH"
	defaultSlippagePercent  = "1"
	defaultIBCTimeout       = 5 * time.Minute
)

// Type URLs of the messages built here.
const (
	TypeMsgTransfer                = bridge.TypeMsgTransfer
	TypeMsgSend                    = bridge.TypeMsgSend
	TypeMsgInitiateTokenDeposit    = bridge.TypeMsgInitiateTokenDeposit
	TypeMsgInitiateTokenWithdrawal = bridge.TypeMsgInitiateTokenWithdrawal
)

// Request is the body of POST /v2/fungible/msgs.
type Request struct {
	SourceAssetDenom         string            `json:"source_asset_denom"`
	SourceAssetChainID       string            `json:"source_asset_chain_id"`
	DestAssetDenom           string            `json:"dest_asset_denom"`
	DestAssetChainID         string            `json:"dest_asset_chain_id"`
	AmountIn                 string            `json:"amount_in"`
	AmountOut                string            `json:"amount_out"`
	AddressList              []string          `json:"address_list"`
	Operations               []route.Operation `json:"operations"`
	SlippageTolerancePercent string            `json:"slippage_tolerance_percent"`
	TimeoutSeconds           string            `json:"timeout_seconds"`
	SignedOPHook             *SignedOPHook     `json:"signed_op_hook"`
}

// SignedOPHook is the wallet-signed L2 transaction (base64 Tx bytes) for a deposit hook.
type SignedOPHook struct {
	Signer string `json:"signer"`
	Hook   string `json:"hook"`
}

// Response is the /msgs response.
type Response struct {
	Msgs          []Msg       `json:"msgs"`
	Txs           []Tx        `json:"txs"`
	MinAmountOut  string      `json:"min_amount_out"`
	EstimatedFees []route.Fee `json:"estimated_fees"`
}

// Msg is the deprecated flat message form.
type Msg struct {
	MultiChainMsg *MultiChainMsg `json:"multi_chain_msg,omitempty"`
	EVMTx         *EVMTx         `json:"evm_tx,omitempty"`
}

// MultiChainMsg is one cosmos message of the flat form.
type MultiChainMsg struct {
	ChainID    string   `json:"chain_id"`
	Path       []string `json:"path"`
	Msg        string   `json:"msg"`
	MsgTypeURL string   `json:"msg_type_url"`
}

// Tx is one transaction the user signs.
type Tx struct {
	CosmosTx          *CosmosTx `json:"cosmos_tx,omitempty"`
	EVMTx             *EVMTx    `json:"evm_tx,omitempty"`
	OperationsIndices []int     `json:"operations_indices"`
}

// CosmosTx is a transaction for a Cosmos chain.
type CosmosTx struct {
	ChainID       string      `json:"chain_id"`
	Path          []string    `json:"path"`
	SignerAddress string      `json:"signer_address"`
	Msgs          []CosmosMsg `json:"msgs"`
}

// CosmosMsg is one message; Msg is an amino-JSON string.
type CosmosMsg struct {
	MsgTypeURL string `json:"msg_type_url"`
	Msg        string `json:"msg"`
}

// EVMTx is a transaction for an EVM chain; Data is hex without 0x.
type EVMTx struct {
	ChainID                string          `json:"chain_id"`
	To                     string          `json:"to"`
	Value                  string          `json:"value"`
	Data                   string          `json:"data"`
	SignerAddress          string          `json:"signer_address"`
	RequiredERC20Approvals []ERC20Approval `json:"required_erc20_approvals"`
}

// ERC20Approval is an allowance the signer must grant first.
type ERC20Approval struct {
	TokenContract string `json:"token_contract"`
	Spender       string `json:"spender"`
	Amount        string `json:"amount"`
}

// Builder builds messages over one registry snapshot.
type Builder struct {
	Reg *registry.Registry
	// Now is the clock for IBC timeouts (time.Now when nil).
	Now func() time.Time
	// IBCTimeout is the default relative IBC timeout (5 min when 0).
	IBCTimeout time.Duration
	// LayerZeroFee is the messaging fee per source chain id (wei), as in route.Config.
	LayerZeroFee map[string]string
	// LZQuotes, when set, quotes each LayerZero send's fee from its source chain
	// (lzquote.go); LayerZeroFee is then only the route's estimate.
	LZQuotes LZQuoter
}

// ValidateAddress checks an address for a chain: bech32 with the chain's prefix and a 20- or
// 32-byte payload on Cosmos chains, 0x + 40 hex digits on EVM chains.
func ValidateAddress(c *registry.Chain, addr string) error {
	if c.Type == registry.ChainTypeEVM {
		if len(addr) != 42 || !strings.HasPrefix(addr, "0x") {
			return fmt.Errorf("%q is not a 0x-prefixed 20-byte hex address", addr)
		}
		if _, err := hex.DecodeString(addr[2:]); err != nil {
			return fmt.Errorf("%q is not a 0x-prefixed 20-byte hex address", addr)
		}
		return nil
	}
	hrp, data, err := bech32.DecodeToBase256(addr)
	if err != nil {
		return fmt.Errorf("%q is not bech32: %w", addr, err)
	}
	if hrp != c.Bech32Prefix {
		return fmt.Errorf("%q has prefix %q, chain %s uses %q", addr, hrp, c.ID, c.Bech32Prefix)
	}
	if len(data) != 20 && len(data) != 32 {
		return fmt.Errorf("%q holds %d bytes, want 20 or 32", addr, len(data))
	}
	return nil
}

func addrErr(i int, chainID string, err error) *route.Error {
	return route.Invalidf(ReasonInvalidAddress, "address_list[%d] for chain %s: %v", i, chainID, err)
}

func opsErr(format string, args ...any) *route.Error {
	return route.Invalidf(ReasonInvalidOperations, "operations: "+format, args...)
}

// plan is the validated, position-annotated form of the operations.
type plan struct {
	ops      []route.Operation
	hops     []bridge.Hop // ops normalized
	slip     *big.Rat     // the request's slippage tolerance
	chains   []string     // chain_ids of the route
	required []string     // required_chain_addresses
	fromPos  []int
	toPos    []int
	amounts  []*uint256.Int // the amount each op's message moves, then the final amount out
	// toLocal and fromLocal are the ERC20Wrapper conversions folded into operations (by
	// operation index): toLocal after the op's arrival, fromLocal before its departure.
	toLocal, fromLocal map[int]route.WrapStep
	// lzFee are the LayerZero fees quoted for this request, by source chain.
	lzFee map[string]string
}

// Plan validates operations against the registry and the request's endpoints.
func (b Builder) plan(srcChain, srcDenom, dstChain, dstDenom string, amountIn *uint256.Int, ops []route.Operation) (*plan, error) {
	if len(ops) == 0 {
		return nil, opsErr("at least one operation is required")
	}
	p := &plan{ops: ops, toLocal: map[int]route.WrapStep{}, fromLocal: map[int]route.WrapStep{}}
	for _, op := range ops {
		p.hops = append(p.hops, op.Hop())
	}
	p.chains = []string{p.hops[0].FromChainID}
	for _, w := range route.WrapsOf(b.Reg, p.hops) {
		if w.ToLocal {
			p.toLocal[w.OperationIndex] = w
		} else {
			p.fromLocal[w.OperationIndex] = w
		}
	}
	cur := amountIn
	curPath := ""
	if c := b.Reg.Chain(srcChain); c != nil {
		if a := c.Asset(srcDenom); a != nil {
			curPath = a.Path
		}
	}
	prevTx := 0
	for i, op := range ops {
		h := p.hops[i]
		if op.Variants() != 1 {
			return nil, opsErr("operation %d must have exactly one variant", i)
		}
		if op.TxIndex != prevTx && op.TxIndex != prevTx+1 || (i == 0 && op.TxIndex != 0) {
			return nil, opsErr("operation %d has tx_index %d after %d", i, op.TxIndex, prevTx)
		}
		prevTx = op.TxIndex
		from, to := h.FromChainID, h.ToChainID
		if i == 0 && (from != srcChain || !sameDenom(h.DenomIn, srcDenom)) {
			return nil, opsErr("the first operation starts at %s on %s, the request at %s on %s", h.DenomIn, from, srcDenom, srcChain)
		}
		if i > 0 && (from != p.hops[i-1].ToChainID || !sameDenom(h.DenomIn, p.hops[i-1].DenomOut)) {
			return nil, opsErr("operation %d does not continue from operation %d", i, i-1)
		}
		if op.AmountIn != "" {
			v, e := route.ParseAmount(fmt.Sprintf("operations[%d].amount_in", i), op.AmountIn)
			if e != nil {
				return nil, e
			}
			if !v.Eq(cur) {
				return nil, opsErr("operation %d amount_in %s, expected %s", i, op.AmountIn, cur.Dec())
			}
		}
		bare, wrapped := unwrapOp(op, p.toLocal[i], p.fromLocal[i])
		if w, ok := p.fromLocal[i]; ok {
			// The hop carries the coin the wrapper gives back, with that coin's ICS-20 path.
			if c := b.Reg.Chain(w.ChainID); c != nil {
				if a := c.Asset(w.RemoteDenom); a != nil {
					curPath = a.Path
				}
			}
		}
		next, err := b.checkOp(i, h.Bridge, bare, curPath)
		if err != nil {
			return nil, err
		}
		curPath = next
		// The hop moves the bridged coin: the wrapper token's amount scaled down before it
		// leaves, scaled up again once it arrives (×/÷ 10^(local−remote decimals)).
		moved := cur
		if w, ok := p.fromLocal[i]; ok {
			scale := pow10(w.LocalDecimals - w.RemoteDecimals)
			if new(uint256.Int).Mod(cur, scale).Sign() != 0 {
				return nil, route.Invalidf(route.ReasonInvalidAmount, "operation %d: %s %s is not a whole number of %s (10^%d base units each)",
					i, cur.Dec(), w.LocalDenom, w.RemoteDenom, w.LocalDecimals-w.RemoteDecimals)
			}
			moved = new(uint256.Int).Div(cur, scale)
		}
		p.amounts = append(p.amounts, moved)
		out := moved
		if w, ok := p.toLocal[i]; ok {
			out = new(uint256.Int).Mul(moved, pow10(w.LocalDecimals-w.RemoteDecimals))
		}
		if op.AmountOut != "" {
			v, e := route.ParseAmount(fmt.Sprintf("operations[%d].amount_out", i), op.AmountOut)
			if e != nil {
				return nil, e
			}
			if h.Bridge != bridge.SwapOp && !v.Eq(out) {
				if wrapped {
					return nil, opsErr("operation %d amount_out %s, the wrapper converts to %s", i, op.AmountOut, out.Dec())
				}
				return nil, opsErr("operation %d is a transfer but changes the amount", i)
			}
			out = v
		}
		cur = out
		p.fromPos = append(p.fromPos, len(p.chains)-1)
		if to != p.chains[len(p.chains)-1] {
			p.chains = append(p.chains, to)
		}
		p.toPos = append(p.toPos, len(p.chains)-1)
	}
	p.amounts = append(p.amounts, cur)
	last := p.hops[len(ops)-1]
	if last.ToChainID != dstChain || !sameDenom(last.DenomOut, dstDenom) {
		return nil, opsErr("the last operation ends at %s on %s, the request at %s on %s", last.DenomOut, last.ToChainID, dstDenom, dstChain)
	}
	p.required = append([]string(nil), p.chains...)
	if len(p.required) == 1 {
		p.required = append(p.required, p.chains[0])
		p.toPos[len(p.toPos)-1] = 1
	}
	return p, nil
}

func pow10(n int) *uint256.Int {
	return new(uint256.Int).Exp(uint256.NewInt(10), uint256.NewInt(uint64(n)))
}

func sameDenom(a, b string) bool {
	if strings.HasPrefix(a, "0x") && strings.HasPrefix(b, "0x") {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// checkOp verifies one operation is an edge of its bridge br in the registry (every bridge's
// Check refuses an unknown chain first). inPath is the full ICS-20 path of the operation's
// input (intermediate vouchers of a forward chain need not be listed); it returns the
// output's path.
func (b Builder) checkOp(i int, br bridge.Bridge, op route.Operation, inPath string) (string, error) {
	out, err := br.Check(b.Reg, i, op, inPath)
	return out, refusal(err)
}

// refusal is a bridge's refusal as this package's error: an unsupported operation, or invalid
// operations.
func refusal(err error) error {
	var be *bridge.Error
	if errors.As(err, &be) {
		// The bridge clipped what it quoted; its message is passed on whole.
		if be.Unsupported {
			return &route.Error{Kind: route.Invalid, Reason: ReasonUnsupportedOp, Message: be.Message}
		}
		return &route.Error{Kind: route.Invalid, Reason: ReasonInvalidOperations, Message: "operations: " + be.Message}
	}
	return err
}

// Build validates the request and returns the transactions to sign.
func (b Builder) Build(req Request) (*Response, error) {
	return b.BuildContext(context.Background(), req)
}

// BuildContext is Build with the context of the quotes it asks chains for.
func (b Builder) BuildContext(ctx context.Context, req Request) (*Response, error) {
	amountIn, e := route.ParseAmount("amount_in", req.AmountIn)
	if e != nil {
		return nil, e
	}
	for _, f := range []struct{ field, chain, denomField, denom string }{
		{"source_asset_chain_id", req.SourceAssetChainID, "source_asset_denom", req.SourceAssetDenom},
		{"dest_asset_chain_id", req.DestAssetChainID, "dest_asset_denom", req.DestAssetDenom},
	} {
		if err := b.lookup(f.field, f.chain, f.denomField, f.denom); err != nil {
			return nil, err
		}
	}
	slip, err := parseSlippage(req.SlippageTolerancePercent)
	if err != nil {
		return nil, err
	}
	timeout := b.IBCTimeout
	if timeout == 0 {
		timeout = defaultIBCTimeout
	}
	if req.TimeoutSeconds != "" {
		s, err := strconv.ParseUint(req.TimeoutSeconds, 10, 32)
		if err != nil || s == 0 {
			return nil, route.Invalidf(ReasonInvalidTimeout, "timeout_seconds must be a positive integer")
		}
		timeout = time.Duration(s) * time.Second
	}
	p, err := b.plan(req.SourceAssetChainID, req.SourceAssetDenom, req.DestAssetChainID, req.DestAssetDenom, amountIn, req.Operations)
	if err != nil {
		return nil, err
	}
	p.slip = slip
	if len(req.AddressList) != len(p.required) {
		return nil, route.Invalidf(ReasonAddressListLength, "address_list has %d entries, the route needs %d (%s)", len(req.AddressList), len(p.required),
			strings.Join(p.required, ", "))
	}
	for i, a := range req.AddressList {
		c := b.Reg.Chain(p.required[i])
		if err := ValidateAddress(c, a); err != nil {
			return nil, addrErr(i, c.ID, err)
		}
	}
	amountOut := p.amounts[len(p.amounts)-1]
	if req.AmountOut != "" {
		v, e := route.ParseAmount("amount_out", req.AmountOut)
		if e != nil {
			return nil, e
		}
		if !v.Eq(amountOut) {
			return nil, route.Invalidf(ReasonAmountOutMismatch, "amount_out %s does not match the operations' %s", req.AmountOut, amountOut.Dec())
		}
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	deadline := uint64(now().Add(timeout).UnixNano())

	resp := &Response{Msgs: []Msg{}, Txs: []Tx{}, EstimatedFees: []route.Fee{}}
	for start := 0; start < len(p.ops); {
		end := start + 1
		for end < len(p.ops) && p.ops[end].TxIndex == p.ops[start].TxIndex {
			end++
		}
		tx, err := b.buildTx(ctx, req, p, start, end, deadline)
		if err != nil {
			return nil, err
		}
		resp.Txs = append(resp.Txs, *tx)
		if tx.CosmosTx != nil {
			for _, m := range tx.CosmosTx.Msgs {
				resp.Msgs = append(resp.Msgs, Msg{MultiChainMsg: &MultiChainMsg{ChainID: tx.CosmosTx.ChainID, Path: tx.CosmosTx.Path, Msg: m.Msg, MsgTypeURL: m.MsgTypeURL}})
			}
		} else {
			resp.Msgs = append(resp.Msgs, Msg{EVMTx: tx.EVMTx})
		}
		start = end
	}
	env := bridge.Env{Reg: b.Reg, Est: bridge.Estimates{LayerZeroFee: b.LayerZeroFee}}
	if len(p.lzFee) > 0 {
		// The quoted fees replace the configured ones.
		fees := maps.Clone(b.LayerZeroFee)
		if fees == nil {
			fees = map[string]string{}
		}
		maps.Copy(fees, p.lzFee)
		env.Est.LayerZeroFee = fees
	}
	for i, op := range p.ops {
		resp.EstimatedFees = append(resp.EstimatedFees, p.hops[i].Bridge.Fees(env, i, op)...)
	}
	resp.MinAmountOut = applySlippage(amountOut, slip).Dec()
	return resp, nil
}

func (b Builder) lookup(chainField, chainID, denomField, denom string) error {
	if chainID == "" {
		return route.Invalidf(route.ReasonMissingField, "%s is required", chainField)
	}
	if denom == "" {
		return route.Invalidf(route.ReasonMissingField, "%s is required", denomField)
	}
	c := b.Reg.Chain(chainID)
	if c == nil {
		return route.Unknownf(route.ReasonUnknownChain, "unknown chain %q in %s", chainID, chainField)
	}
	if c.Asset(denom) == nil {
		return route.Unknownf(route.ReasonUnknownAsset, "unknown %s %q on chain %s", denomField, denom, chainID)
	}
	return nil
}

func parseSlippage(s string) (*big.Rat, error) {
	if s == "" {
		s = defaultSlippagePercent
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || strings.ContainsAny(s, "/eE") || r.Sign() < 0 || r.Cmp(big.NewRat(100, 1)) > 0 {
		return nil, route.Invalidf(ReasonInvalidSlippage, "slippage_tolerance_percent must be a decimal between 0 and 100")
	}
	return r, nil
}

// applySlippage is floor(amount × (100 − slippage) / 100).
func applySlippage(amount *uint256.Int, slip *big.Rat) *uint256.Int {
	keep := new(big.Rat).Sub(big.NewRat(100, 1), slip)
	v := new(big.Rat).Mul(new(big.Rat).SetInt(amount.ToBig()), keep)
	v.Quo(v, big.NewRat(100, 1))
	out, _ := uint256.FromBig(new(big.Int).Quo(v.Num(), v.Denom()))
	return out
}

// buildTx builds the transaction of operations [start,end): the composition rules first
// (compose.go), then the first operation's bridge.
func (b Builder) buildTx(ctx context.Context, req Request, p *plan, start, end int, deadline uint64) (*Tx, error) {
	first := p.hops[start]
	chain := b.Reg.Chain(first.FromChainID)
	signer := req.AddressList[p.fromPos[start]]
	indices := make([]int, 0, end-start)
	for i := start; i < end; i++ {
		indices = append(indices, i)
	}
	path := []string{}
	for i := start; i < end; i++ {
		if i == start {
			path = append(path, p.hops[i].FromChainID)
		}
		if to := p.hops[i].ToChainID; to != path[len(path)-1] {
			path = append(path, to)
		}
	}
	tx := &Tx{OperationsIndices: indices}
	leg := bridge.Leg{Reg: b.Reg, From: chain, Ops: p.ops[start:end], First: start, RouteLen: len(p.ops), Sender: signer,
		Amount: p.amounts[start], Deadline: deadline, Fee: b.LayerZeroFee[chain.ID]}
	for i := start; i < end; i++ {
		leg.Receivers = append(leg.Receivers, req.AddressList[p.toPos[i]])
	}
	if p.slip != nil {
		leg.MinAmount = applySlippage(p.amounts[start], p.slip)
	}
	ms, err := b.compose(req, p, start, end, &leg)
	if err != nil {
		return nil, err
	}
	if first.Bridge == bridge.LayerZero && b.LZQuotes != nil {
		f, err := b.quoteLZ(ctx, p.ops[start], &leg)
		if err != nil {
			return nil, err
		}
		leg.Fee = f
		if p.lzFee == nil {
			p.lzFee = map[string]string{}
		}
		p.lzFee[chain.ID] = f
	}
	if ms != nil {
		tx.CosmosTx = &CosmosTx{ChainID: chain.ID, Path: path, SignerAddress: signer, Msgs: ms}
		return tx, nil
	}
	if chain.Type == registry.ChainTypeEVM && end-start != 1 && leg.Compose == nil {
		return nil, opsErr("an EVM transaction carries one operation, tx %d has %d", first.TxIndex, end-start)
	}
	m, err := first.Bridge.Build(leg)
	if ae := (*bridge.AddressError)(nil); errors.As(err, &ae) {
		return nil, addrErr(p.toPos[end-1], ae.ChainID, ae.Err)
	}
	if err != nil {
		return nil, refusal(err)
	}
	if m.EVM != nil {
		tx.EVMTx = evmTx(chain, signer, m.EVM)
		return tx, nil
	}
	var cms []CosmosMsg
	for _, m := range append([]bridge.Message{m}, m.Then...) {
		cm, err := aminoMsg(m.TypeURL, m.Cosmos)
		if err != nil {
			return nil, err
		}
		cms = append(cms, cm)
	}
	tx.CosmosTx = &CosmosTx{ChainID: chain.ID, Path: path, SignerAddress: signer, Msgs: cms}
	return tx, nil
}

// quoteLZ asks the source chain for the fee of the LayerZero send starting the leg.
func (b Builder) quoteLZ(ctx context.Context, op route.Operation, leg *bridge.Leg) (string, error) {
	z := op.LayerZeroTransfer
	src, dst := b.Reg.Chain(z.FromChainID), b.Reg.Chain(z.ToChainID)
	to, opts, compose, err := bridge.LayerZeroSend(dst, *leg)
	if err != nil {
		return "", nil // the bridge's Build reports the address
	}
	f, err := b.LZQuotes.QuoteLayerZero(ctx, LZQuote{Chain: src, OFT: z.SourceOFTContractAddress, DstEID: z.DestinationEndpointID,
		To: to, Sender: leg.Sender, Amount: leg.Amount, MinAmount: leg.MinAmount, Options: opts, ComposeMsg: compose})
	if err != nil {
		return "", &SourceError{Err: fmt.Errorf("LayerZero fee quote on %s: %w", src.ID, err)}
	}
	return f, nil
}

// evmTx is a bridge's EVM call as the evm_tx the signer on chain sends (data: hex without 0x).
func evmTx(chain *registry.Chain, signer string, c *bridge.EVMCall) *EVMTx {
	tx := &EVMTx{ChainID: chain.ID, To: c.To, Value: c.Value, Data: hex.EncodeToString(c.Data), SignerAddress: signer,
		RequiredERC20Approvals: []ERC20Approval{}}
	for _, a := range c.Approvals {
		tx.RequiredERC20Approvals = append(tx.RequiredERC20Approvals, ERC20Approval{TokenContract: a.TokenContract, Spender: a.Spender, Amount: a.Amount})
	}
	return tx
}

func aminoMsg(typeURL string, m proto.Message) (CosmosMsg, error) {
	b, err := txcodec.MarshalAminoValue(m)
	if err != nil {
		return CosmosMsg{}, fmt.Errorf("msgs: %w", err)
	}
	return CosmosMsg{MsgTypeURL: typeURL, Msg: string(b)}, nil
}

// OPHook builds the messages the rollup runs after the deposit (operation depositIndex) of
// ops: the same-transaction operations that follow it, signed on the rollup by the deposit's
// recipient. sender is that recipient; receiver is the final recipient.
func (b Builder) OPHook(ops []route.Operation, depositIndex int, sender, receiver string, now time.Time) (string, []CosmosMsg, error) {
	end := depositIndex + 1
	for end < len(ops) && ops[end].TxIndex == ops[depositIndex].TxIndex {
		end++
	}
	if end == depositIndex+1 {
		return "", nil, route.Invalidf(route.ReasonNoRoute, "the route does not continue after the OPinit deposit: no hook is needed")
	}
	l2 := b.Reg.Chain(ops[depositIndex].ToChainID())
	hookOps := ops[depositIndex+1 : end]
	amount, e := route.ParseAmount("amount_in", ops[depositIndex].AmountOut)
	if e != nil {
		return "", nil, e
	}
	timeout := b.IBCTimeout
	if timeout == 0 {
		timeout = defaultIBCTimeout
	}
	// The hook continues the route with an IBC transfer (and its packet-forward run) from the
	// deposit's recipient, paying the final recipient.
	leg := bridge.Leg{Reg: b.Reg, Ops: hookOps, RouteLen: len(ops), Sender: sender, Amount: amount,
		Deadline: uint64(now.Add(timeout).UnixNano())}
	for range hookOps {
		leg.Receivers = append(leg.Receivers, receiver)
	}
	m, err := bridge.Transfers(leg)
	if err != nil {
		return "", nil, refusal(err)
	}
	cm, err := aminoMsg(TypeMsgTransfer, m)
	if err != nil {
		return "", nil, err
	}
	return l2.ID, []CosmosMsg{cm}, nil
}

// Rebech32 re-encodes an address's bytes with another chain's prefix (Initia chains share
// keys, so the user's rollup address is their L1 address with the rollup's prefix).
func Rebech32(addr, prefix string) (string, error) {
	_, data, err := bech32.DecodeToBase256(addr)
	if err != nil {
		return "", err
	}
	return bech32.EncodeFromBase256(prefix, data)
}
