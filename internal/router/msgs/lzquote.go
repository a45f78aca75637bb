package msgs

// The LayerZero messaging fee of a send, quoted by the source chain's OFT: what the
// endpoint charges for the packet at the time the user signs (the route's estimate is only
// the configured figure). A send paying less than the quote is refused by the endpoint, so
// when a quoter is configured and the quote fails, /msgs fails (502) rather than build a tx
// that would revert.
//
//   - An EVM chain: eth_call of the OFT's quoteSend(SendParam, false) → MessagingFee
//     (nativeFee, lzTokenFee) (LayerZero-Labs/LayerZero-v2:packages/layerzero-v2/evm/oapp/
//     contracts/oft/interfaces/IOFT.sol).
//   - A Move chain: the OFT's view <OFT>::oft::quote_send(user_sender, dst_eid, to, amount_ld,
//     min_amount_ld, extra_options, compose_message, oft_cmd, pay_in_zro) → (native_fee,
//     zro_fee) (LayerZero-Labs/devtools: examples/oft-move/sources/oft.move), through the
//     chain's REST POST /initia/move/v1/view with BCS arguments (initia-labs/initia:proto/
//     initia/move/v1/query.proto, Query/View), whose `data` is the result as JSON.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// LZQuote is one send to quote.
type LZQuote struct {
	Chain     *registry.Chain // the source
	OFT       string
	DstEID    uint32
	To        [32]byte
	Sender    string // the signer on Chain
	Amount    *uint256.Int
	MinAmount *uint256.Int
	// Options and ComposeMsg are the send's executor options and compose message (empty
	// without a compose).
	Options, ComposeMsg []byte
}

// LZQuoter quotes LayerZero messaging fees (the native fee, in the source's fee coin).
type LZQuoter interface {
	QuoteLayerZero(ctx context.Context, q LZQuote) (string, error)
}

// ChainLZQuoter quotes from the source chain itself: JSON-RPC on EVM chains, REST on Move
// chains.
type ChainLZQuoter struct {
	Options []httpx.Option

	mu   sync.Mutex
	rest map[string]*cosmosrest.Client
	evm  map[string]*evmrpc.Client
}

var quoteABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"quoteSend","stateMutability":"view","inputs":[
 {"name":"_sendParam","type":"tuple","components":[{"name":"dstEid","type":"uint32"},{"name":"to","type":"bytes32"},{"name":"amountLD","type":"uint256"},{"name":"minAmountLD","type":"uint256"},{"name":"extraOptions","type":"bytes"},{"name":"composeMsg","type":"bytes"},{"name":"oftCmd","type":"bytes"}]},
 {"name":"_payInLzToken","type":"bool"}],
 "outputs":[{"name":"fee","type":"tuple","components":[{"name":"nativeFee","type":"uint256"},{"name":"lzTokenFee","type":"uint256"}]}]}]`))
	if err != nil {
		panic(err) // constant input
	}
	return a
}()

type quoteParam struct {
	DstEid       uint32
	To           [32]byte
	AmountLD     *big.Int
	MinAmountLD  *big.Int
	ExtraOptions []byte
	ComposeMsg   []byte
	OftCmd       []byte
}

// QuoteLayerZero implements LZQuoter.
func (q *ChainLZQuoter) QuoteLayerZero(ctx context.Context, s LZQuote) (string, error) {
	min := s.MinAmount
	if min == nil {
		min = s.Amount
	}
	if s.Chain.Type == registry.ChainTypeEVM {
		return q.quoteEVM(ctx, s, min)
	}
	if bridge.LayerZeroMove(s.Chain) {
		return q.quoteMove(ctx, s, min)
	}
	return "", fmt.Errorf("no LayerZero quote on %s", s.Chain.ID)
}

func (q *ChainLZQuoter) quoteEVM(ctx context.Context, s LZQuote, min *uint256.Int) (string, error) {
	if len(s.Chain.JSONRPC) == 0 {
		return "", fmt.Errorf("the registry lists no JSON-RPC endpoint for %s", s.Chain.ID)
	}
	q.mu.Lock()
	cl := q.evm[s.Chain.ID]
	if cl == nil {
		var err error
		if cl, err = evmrpc.New(strings.Join(s.Chain.JSONRPC, ","), q.Options...); err != nil {
			q.mu.Unlock()
			return "", err
		}
		if q.evm == nil {
			q.evm = map[string]*evmrpc.Client{}
		}
		q.evm[s.Chain.ID] = cl
	}
	q.mu.Unlock()
	data, err := quoteABI.Pack("quoteSend", quoteParam{DstEid: s.DstEID, To: s.To, AmountLD: s.Amount.ToBig(), MinAmountLD: min.ToBig(),
		ExtraOptions: nonNil(s.Options), ComposeMsg: nonNil(s.ComposeMsg), OftCmd: []byte{}}, false)
	if err != nil {
		return "", err
	}
	out, err := cl.EthCall(ctx, common.HexToAddress(s.OFT).Hex(), hexutil.Encode(data), "latest")
	if err != nil {
		return "", fmt.Errorf("quoteSend on %s: %w", s.Chain.ID, err)
	}
	raw, err := hexutil.Decode(out)
	if err != nil || len(raw) < 64 {
		return "", fmt.Errorf("quoteSend on %s answered %q", s.Chain.ID, out)
	}
	return new(big.Int).SetBytes(raw[:32]).String(), nil
}

func (q *ChainLZQuoter) quoteMove(ctx context.Context, s LZQuote, min *uint256.Int) (string, error) {
	if len(s.Chain.REST) == 0 {
		return "", fmt.Errorf("the registry lists no REST endpoint for %s", s.Chain.ID)
	}
	key := strings.Join(s.Chain.REST, ",")
	q.mu.Lock()
	cl := q.rest[key]
	if cl == nil {
		var err error
		if cl, err = cosmosrest.New(key, q.Options...); err != nil {
			q.mu.Unlock()
			return "", err
		}
		if q.rest == nil {
			q.rest = map[string]*cosmosrest.Client{}
		}
		q.rest[key] = cl
	}
	q.mu.Unlock()
	args, err := moveQuoteArgs(s, min)
	if err != nil {
		return "", err
	}
	body := map[string]any{"address": s.OFT, "module_name": "oft", "function_name": "quote_send", "type_args": []string{}, "args": args}
	var resp struct {
		Data string `json:"data"`
	}
	if err := cl.Post(ctx, "/initia/move/v1/view", body, 0, &resp); err != nil {
		return "", fmt.Errorf("quote_send on %s: %w", s.Chain.ID, err)
	}
	return parseMoveFee(resp.Data)
}

// moveQuoteArgs are quote_send's BCS arguments (the JSON body carries bytes as base64).
func moveQuoteArgs(s LZQuote, min *uint256.Int) ([][]byte, error) {
	_, sender, err := bech32.DecodeToBase256(s.Sender)
	if err != nil || len(sender) > 32 {
		return nil, fmt.Errorf("sender %q is not a Move account", s.Sender)
	}
	if !s.Amount.IsUint64() || !min.IsUint64() {
		return nil, errors.New("a Move OFT amount is a u64")
	}
	var addr [32]byte
	copy(addr[32-len(sender):], sender)
	vec := func(b []byte) []byte { return append(binary.AppendUvarint(nil, uint64(len(b))), b...) }
	return [][]byte{
		addr[:],
		binary.LittleEndian.AppendUint32(nil, s.DstEID),
		vec(s.To[:]),
		binary.LittleEndian.AppendUint64(nil, s.Amount.Uint64()),
		binary.LittleEndian.AppendUint64(nil, min.Uint64()),
		vec(s.Options), vec(s.ComposeMsg), vec(nil),
		{0}, // pay_in_zro: false
	}, nil
}

// parseMoveFee reads quote_send's answer, ["<native_fee>","<zro_fee>"] (u64 as strings).
func parseMoveFee(data string) (string, error) {
	var out []any
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || len(out) < 1 {
		return "", fmt.Errorf("quote_send answered %q", data)
	}
	v := fmt.Sprint(out[0])
	if _, ok := new(big.Int).SetString(v, 10); !ok {
		return "", fmt.Errorf("quote_send answered %q", data)
	}
	return v, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
