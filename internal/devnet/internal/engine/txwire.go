package engine

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Coin is sim.Coin, re-exported for brevity.
type Coin = sim.Coin

// Sign modes the engine accepts.
const (
	SignModeDirect   = 1
	SignModeEthereum = 9999 // minievm's mode for Ethereum transactions wrapped as Cosmos txs
)

// AnyMsg is a google.protobuf.Any.
type AnyMsg struct {
	TypeURL string
	Value   []byte
}

// SignerInfo is one cosmos.tx.v1beta1.SignerInfo with a single-mode signature.
type SignerInfo struct {
	PubKeyType string // type URL of the key
	PubKey     []byte // compressed secp256k1 key
	Mode       int32
	Sequence   uint64
}

// Fee is cosmos.tx.v1beta1.Fee.
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
	Msgs          []AnyMsg
	Memo          string
	TimeoutHeight uint64
	Signers       []SignerInfo
	Fee           Fee
}

// HashHex is the upper-case hex SHA-256 of the tx bytes, as CometBFT prints it.
func (t *Tx) HashHex() string { return fmt.Sprintf("%X", t.Hash[:]) }

var errMalformed = errors.New("malformed protobuf")

// walk visits each field of a protobuf message.
func walk(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, u uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			u, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
			if err := fn(num, typ, nil, u); err != nil {
				return err
			}
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
			if err := fn(num, typ, v, 0); err != nil {
				return err
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return errMalformed
			}
			b = b[n:]
		}
	}
	return nil
}

// DecodeTx decodes TxRaw bytes.
func DecodeTx(raw []byte) (*Tx, error) {
	t := &Tx{Raw: raw, Hash: sha256.Sum256(raw)}
	err := walk(raw, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			t.BodyBytes = v
		case 2:
			t.AuthInfoBytes = v
		case 3:
			t.Signatures = append(t.Signatures, v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tx raw: %w", err)
	}
	if err := walk(t.BodyBytes, func(num protowire.Number, typ protowire.Type, v []byte, u uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			a, err := decodeAny(v)
			if err != nil {
				return err
			}
			t.Msgs = append(t.Msgs, a)
		case num == 2 && typ == protowire.BytesType:
			t.Memo = string(v)
		case num == 3 && typ == protowire.VarintType:
			t.TimeoutHeight = u
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("tx body: %w", err)
	}
	if err := walk(t.AuthInfoBytes, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			si, err := decodeSignerInfo(v)
			if err != nil {
				return err
			}
			t.Signers = append(t.Signers, si)
		case 2:
			f, err := decodeFee(v)
			if err != nil {
				return err
			}
			t.Fee = f
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("auth info: %w", err)
	}
	if len(t.Msgs) == 0 {
		return nil, errors.New("must contain at least one message")
	}
	return t, nil
}

func decodeAny(b []byte) (AnyMsg, error) {
	var a AnyMsg
	err := walk(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			a.TypeURL = string(v)
		case 2:
			a.Value = v
		}
		return nil
	})
	return a, err
}

func decodeSignerInfo(b []byte) (SignerInfo, error) {
	var si SignerInfo
	err := walk(b, func(num protowire.Number, typ protowire.Type, v []byte, u uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			a, err := decodeAny(v)
			if err != nil {
				return err
			}
			si.PubKeyType = a.TypeURL
			return walk(a.Value, func(n protowire.Number, t protowire.Type, kv []byte, _ uint64) error {
				if n == 1 && t == protowire.BytesType {
					si.PubKey = kv
				}
				return nil
			})
		case num == 2 && typ == protowire.BytesType:
			return walk(v, func(n protowire.Number, t protowire.Type, sv []byte, _ uint64) error {
				if n == 1 && t == protowire.BytesType { // single
					return walk(sv, func(n protowire.Number, t protowire.Type, _ []byte, mu uint64) error {
						if n == 1 && t == protowire.VarintType {
							si.Mode = int32(mu)
						}
						return nil
					})
				}
				return nil
			})
		case num == 3 && typ == protowire.VarintType:
			si.Sequence = u
		}
		return nil
	})
	return si, err
}

func decodeCoin(b []byte) (Coin, error) {
	var denom, amount string
	err := walk(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ == protowire.BytesType && num == 1 {
			denom = string(v)
		}
		if typ == protowire.BytesType && num == 2 {
			amount = string(v)
		}
		return nil
	})
	if err != nil {
		return Coin{}, err
	}
	amt, err := parseAmount(amount)
	return Coin{Denom: denom, Amount: amt}, err
}

func decodeFee(b []byte) (Fee, error) {
	var f Fee
	err := walk(b, func(num protowire.Number, typ protowire.Type, v []byte, u uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			c, err := decodeCoin(v)
			if err != nil {
				return err
			}
			f.Amount = append(f.Amount, c)
		case num == 2 && typ == protowire.VarintType:
			f.GasLimit = u
		case num == 3 && typ == protowire.BytesType:
			f.Payer = string(v)
		case num == 4 && typ == protowire.BytesType:
			f.Granter = string(v)
		}
		return nil
	})
	return f, err
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

// --- encoding ---

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendStringField(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	return appendBytesField(b, num, []byte(v))
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// EncodeAny encodes a google.protobuf.Any.
func EncodeAny(typeURL string, value []byte) []byte {
	b := appendStringField(nil, 1, typeURL)
	if len(value) > 0 {
		b = appendBytesField(b, 2, value)
	}
	return b
}

// EncodeBody encodes a TxBody.
func EncodeBody(msgs []AnyMsg, memo string, timeoutHeight uint64) []byte {
	var b []byte
	for _, m := range msgs {
		b = appendBytesField(b, 1, EncodeAny(m.TypeURL, m.Value))
	}
	b = appendStringField(b, 2, memo)
	return appendVarintField(b, 3, timeoutHeight)
}

func encodeCoin(c Coin) []byte {
	b := appendStringField(nil, 1, c.Denom)
	return appendStringField(b, 2, c.Amount.String())
}

// EncodeAuthInfo encodes an AuthInfo.
func EncodeAuthInfo(signers []SignerInfo, fee Fee) []byte {
	var b []byte
	for _, s := range signers {
		pk := EncodeAny(s.PubKeyType, appendBytesField(nil, 1, s.PubKey))
		single := appendVarintField(nil, 1, uint64(s.Mode))
		mode := appendBytesField(nil, 1, single)
		si := appendBytesField(nil, 1, pk)
		si = appendBytesField(si, 2, mode)
		si = appendVarintField(si, 3, s.Sequence)
		b = appendBytesField(b, 1, si)
	}
	var fb []byte
	for _, c := range fee.Amount {
		fb = appendBytesField(fb, 1, encodeCoin(c))
	}
	fb = appendVarintField(fb, 2, fee.GasLimit)
	fb = appendStringField(fb, 3, fee.Payer)
	fb = appendStringField(fb, 4, fee.Granter)
	return appendBytesField(b, 2, fb)
}

// SignDoc returns the SIGN_MODE_DIRECT sign bytes.
func SignDoc(body, authInfo []byte, chainID string, accountNumber uint64) []byte {
	b := appendBytesField(nil, 1, body)
	b = appendBytesField(b, 2, authInfo)
	b = appendStringField(b, 3, chainID)
	return appendVarintField(b, 4, accountNumber)
}

// EncodeTxRaw encodes a TxRaw.
func EncodeTxRaw(body, authInfo []byte, sigs [][]byte) []byte {
	b := appendBytesField(nil, 1, body)
	b = appendBytesField(b, 2, authInfo)
	for _, s := range sigs {
		b = appendBytesField(b, 3, s)
	}
	return b
}

// EncodeTxMsgData encodes cosmos.base.abci.v1beta1.TxMsgData with msg_responses (field 2).
func EncodeTxMsgData(responses []AnyMsg) []byte {
	var b []byte
	for _, r := range responses {
		b = appendBytesField(b, 2, EncodeAny(r.TypeURL, r.Value))
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
