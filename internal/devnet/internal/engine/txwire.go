package engine

// The engine's view of a transaction. txcodec decodes and encodes it with the generated
// cosmos.tx.v1beta1 types; the engine keeps what its ante handler and delivery read, with
// the fee's coins parsed and each signer's key as its type URL and raw bytes.

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	abciv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/abci/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	secp256k1pb "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/secp256k1"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Coin is sim.Coin, re-exported for brevity.
type Coin = sim.Coin

// Sign modes the engine accepts.
const (
	SignModeDirect   = int32(txcodec.SignModeDirect)
	SignModeEthereum = int32(txcodec.SignModeEthereum) // minievm's mode for Ethereum txs wrapped as Cosmos txs
)

// SignerInfo is one cosmos.tx.v1beta1.SignerInfo with a single-mode signature.
type SignerInfo struct {
	PubKeyType string // type URL of the key
	PubKey     []byte // compressed secp256k1 key
	Mode       int32
	Sequence   uint64
}

// Fee is cosmos.tx.v1beta1.Fee with its coins parsed.
type Fee struct {
	Amount   []Coin
	GasLimit uint64
	Payer    string
	Granter  string
}

// Tx is a decoded TxRaw with its body and auth info.
type Tx struct {
	Raw           []byte
	Hash          [32]byte
	BodyBytes     []byte
	AuthInfoBytes []byte
	Signatures    [][]byte
	// Msgs are the body's messages as sent; the ante handler resolves them (decodeMsgs).
	Msgs          []*anypb.Any
	Memo          string
	TimeoutHeight uint64
	Signers       []SignerInfo
	Fee           Fee
}

// HashHex is the upper-case hex SHA-256 of the tx bytes, as CometBFT prints it.
func (t *Tx) HashHex() string { return fmt.Sprintf("%X", t.Hash[:]) }

// errMalformed is what a node's decoder reports for bytes that are no protobuf of the part's
// type; the engine names only the part (as it always has), not the protobuf library's reason.
var errMalformed = errors.New("malformed protobuf")

// DecodeTx decodes TxRaw bytes.
func DecodeTx(raw []byte) (*Tx, error) {
	d, err := txcodec.DecodeEnvelope(raw)
	if err != nil {
		var de *txcodec.DecodeError
		if errors.As(err, &de) {
			return nil, fmt.Errorf("%s: %w", de.Part, errMalformed)
		}
		return nil, err
	}
	t := &Tx{Raw: raw, Hash: sha256.Sum256(raw), BodyBytes: d.Raw.BodyBytes, AuthInfoBytes: d.Raw.AuthInfoBytes,
		Signatures: d.Raw.Signatures, Msgs: d.Body.Messages, Memo: d.Body.Memo, TimeoutHeight: d.Body.TimeoutHeight}
	for _, si := range d.AuthInfo.SignerInfos {
		s := SignerInfo{Mode: int32(si.GetModeInfo().GetSingle().GetMode()), Sequence: si.Sequence}
		if pk := si.PublicKey; pk != nil {
			// Both secp256k1 schemes carry the key in field 1; other key types leave it empty
			// and fail the ante's address derivation by their type URL.
			var k secp256k1pb.PubKey
			if err := proto.Unmarshal(pk.Value, &k); err != nil {
				return nil, fmt.Errorf("auth info: %w", errMalformed)
			}
			s.PubKeyType, s.PubKey = pk.TypeUrl, k.Key
		}
		t.Signers = append(t.Signers, s)
	}
	fee := d.Fee()
	t.Fee = Fee{GasLimit: fee.GasLimit, Payer: fee.Payer, Granter: fee.Granter}
	for _, c := range fee.Amount {
		amt, err := parseAmount(c.Amount)
		if err != nil {
			return nil, fmt.Errorf("auth info: %w", err)
		}
		t.Fee.Amount = append(t.Fee.Amount, Coin{Denom: c.Denom, Amount: amt})
	}
	if len(t.Msgs) == 0 {
		return nil, errors.New("must contain at least one message")
	}
	return t, nil
}

func parseAmount(s string) (*big.Int, error) {
	if s == "" {
		return new(big.Int), nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("invalid coin amount %q", s)
	}
	return v, nil
}

// protoCoins is coins as the generated Coin type.
func protoCoins(coins []Coin) []*basev1beta1.Coin {
	out := make([]*basev1beta1.Coin, 0, len(coins))
	for _, c := range coins {
		out = append(out, &basev1beta1.Coin{Denom: c.Denom, Amount: c.Amount.String()})
	}
	return out
}

// PackAny packs a message as it is: unlike txcodec.PackAny it fills no non-nullable field,
// so a message signed here has exactly the bytes its sender built.
func PackAny(m proto.Message) (*anypb.Any, error) {
	v, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("marshal msg: %w", err)
	}
	return &anypb.Any{TypeUrl: TypeURL(m), Value: v}, nil
}

// EncodeAny encodes a google.protobuf.Any.
func EncodeAny(typeURL string, value []byte) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&anypb.Any{TypeUrl: typeURL, Value: value})
	if err != nil {
		return nil // an Any of a string and bytes always marshals
	}
	return b
}

// encodeTxMsgData is a tx result's data: cosmos.base.abci.v1beta1.TxMsgData with one
// msg_responses entry per message.
func encodeTxMsgData(responses []*anypb.Any) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&abciv1beta1.TxMsgData{MsgResponses: responses})
	if err != nil {
		return nil // Anys of strings and bytes always marshal
	}
	return b
}

// CoinsString renders coins the SDK way: sorted by denom, "<amount><denom>" joined by commas.
func CoinsString(coins []Coin) string {
	cs := append([]Coin(nil), coins...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].Denom < cs[j].Denom })
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, c.Amount.String()+c.Denom)
	}
	return strings.Join(parts, ",")
}

// EncodeTx encodes a transaction whose signatures were made elsewhere (minievm's wrapping of
// a signed Ethereum tx, sign mode 9999), through the generated cosmos.tx.v1beta1 types.
func EncodeTx(msgs []*anypb.Any, memo string, signers []SignerInfo, fee Fee, sigs [][]byte) ([]byte, error) {
	opts := proto.MarshalOptions{Deterministic: true}
	body, err := opts.Marshal(&txv1beta1.TxBody{Messages: msgs, Memo: memo})
	if err != nil {
		return nil, fmt.Errorf("marshal body: %w", err)
	}
	auth := &txv1beta1.AuthInfo{Fee: &txv1beta1.Fee{Amount: protoCoins(fee.Amount), GasLimit: fee.GasLimit, Payer: fee.Payer, Granter: fee.Granter}}
	for _, s := range signers {
		pk, err := opts.Marshal(&secp256k1pb.PubKey{Key: s.PubKey})
		if err != nil {
			return nil, fmt.Errorf("marshal public key: %w", err)
		}
		auth.SignerInfos = append(auth.SignerInfos, &txv1beta1.SignerInfo{
			PublicKey: &anypb.Any{TypeUrl: s.PubKeyType, Value: pk},
			ModeInfo:  &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: signingv1beta1.SignMode(s.Mode)}}},
			Sequence:  s.Sequence,
		})
	}
	authBytes, err := opts.Marshal(auth)
	if err != nil {
		return nil, fmt.Errorf("marshal auth info: %w", err)
	}
	return opts.Marshal(&txv1beta1.TxRaw{BodyBytes: body, AuthInfoBytes: authBytes, Signatures: sigs})
}
