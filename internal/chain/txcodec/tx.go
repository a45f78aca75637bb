package txcodec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	_ "github.com/rollgate/rollgate/internal/chain/protos" // registers every message type
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	signingv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/signing/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

// Sign modes, re-exported so callers need not import the generated package.
const (
	SignModeDirect          = signingv1beta1.SignMode_SIGN_MODE_DIRECT
	SignModeLegacyAminoJSON = signingv1beta1.SignMode_SIGN_MODE_LEGACY_AMINO_JSON
	// SignModeEthereum (9999) marks minievm's cosmos wrapping of an Ethereum tx: the
	// signature is the Ethereum tx's, over the RLP of an eth tx rebuilt from the MsgCall
	// or MsgCreate plus the JSON memo. It is not an upstream enum value (REST renders it
	// as the number 9999) and VerifySignatures rejects it with ErrUnsupportedSignMode.
	SignModeEthereum signingv1beta1.SignMode = 9999
	// SignModeEIP191 (191) is Initia's SIGN_MODE_EIP_191: an Ethereum personal_sign of the
	// legacy amino StdSignDoc (EIP191SignBytes). InterwovenKit signs every Cosmos tx with it.
	SignModeEIP191 = signingv1beta1.SignMode_SIGN_MODE_EIP_191
)

// Errors returned by Decode and VerifySignatures; the devnet maps them to ABCI codes
// (ErrTxDecode 2, ErrUnauthorized 4, ErrWrongSequence 32, ErrUnknownAddress 9,
// ErrInvalidPubKey 8).
var (
	ErrTxDecode       = errors.New("tx parse error")
	ErrUnauthorized   = errors.New("signature verification failed")
	ErrWrongSequence  = errors.New("incorrect account sequence")
	ErrUnknownAddress = errors.New("unknown address")
	ErrInvalidPubKey  = errors.New("invalid pubkey")
	// ErrUnsupportedSignMode wraps ErrUnauthorized.
	ErrUnsupportedSignMode = fmt.Errorf("%w: unsupported sign mode", ErrUnauthorized)
)

var marshalOpts = proto.MarshalOptions{Deterministic: true}

// Signer is one signer of a transaction being built.
type Signer struct {
	Key           *PrivKey
	AccountNumber uint64
	Sequence      uint64
}

// Builder describes a transaction to build and sign. Signers sign in order; the first
// signer pays the fee unless Payer is set.
type Builder struct {
	ChainID       string
	Msgs          []proto.Message
	Memo          string
	Fee           []*basev1beta1.Coin
	GasLimit      uint64
	Payer         string
	Granter       string
	TimeoutHeight uint64
	Signers       []Signer
	// SignMode defaults to SIGN_MODE_DIRECT.
	SignMode signingv1beta1.SignMode
}

// PackAny wraps a message in an Any with the "/" + full name type URL. An *anypb.Any is
// passed through unchanged.
func PackAny(m proto.Message) (*anypb.Any, error) {
	if a, ok := m.(*anypb.Any); ok {
		return a, nil
	}
	m = proto.Clone(m)
	fillNonNullable(m.ProtoReflect())
	b, err := marshalOpts.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return &anypb.Any{TypeUrl: "/" + string(m.ProtoReflect().Descriptor().FullName()), Value: b}, nil
}

// fillNonNullable sets every unset (gogoproto.nullable) = false message field to an
// empty message, so the encoding carries the empty submessage exactly as the chain's
// gogoproto structs always do (same bytes, hence same hash, and x/tx's amino JSON
// encoder, which refuses an absent dont_omitempty message, accepts it).
func fillNonNullable(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				fillNonNullable(l.Get(j).Message())
			}
			continue
		}
		if !m.Has(fd) {
			if !nonNullable[fd.FullName()] {
				continue
			}
			m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
		}
		if fd.Message().FullName() != "google.protobuf.Any" {
			fillNonNullable(m.Mutable(fd).Message())
		}
	}
}

// Build signs and encodes the transaction as TxRaw bytes (what is broadcast).
func (b *Builder) Build() ([]byte, error) {
	raw, err := b.BuildRaw()
	if err != nil {
		return nil, err
	}
	return marshalOpts.Marshal(raw)
}

// BuildRaw signs the transaction and returns the TxRaw message.
func (b *Builder) BuildRaw() (*txv1beta1.TxRaw, error) {
	if len(b.Signers) == 0 {
		return nil, errors.New("build tx: no signers")
	}
	mode := b.SignMode
	if mode == signingv1beta1.SignMode_SIGN_MODE_UNSPECIFIED {
		mode = SignModeDirect
	}
	if mode != SignModeDirect && mode != SignModeLegacyAminoJSON && mode != SignModeEIP191 {
		return nil, fmt.Errorf("build tx: unsupported sign mode %v", mode)
	}
	body := &txv1beta1.TxBody{Memo: b.Memo, TimeoutHeight: b.TimeoutHeight}
	for _, m := range b.Msgs {
		a, err := PackAny(m)
		if err != nil {
			return nil, fmt.Errorf("build tx: %w", err)
		}
		body.Messages = append(body.Messages, a)
	}
	auth := &txv1beta1.AuthInfo{Fee: &txv1beta1.Fee{
		Amount: b.Fee, GasLimit: b.GasLimit, Payer: b.Payer, Granter: b.Granter,
	}}
	for _, s := range b.Signers {
		pk, err := s.Key.PubKey().Any()
		if err != nil {
			return nil, fmt.Errorf("build tx: %w", err)
		}
		auth.SignerInfos = append(auth.SignerInfos, &txv1beta1.SignerInfo{
			PublicKey: pk,
			ModeInfo:  &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: mode}}},
			Sequence:  s.Sequence,
		})
	}
	bodyBytes, err := marshalOpts.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("build tx: marshal body: %w", err)
	}
	authBytes, err := marshalOpts.Marshal(auth)
	if err != nil {
		return nil, fmt.Errorf("build tx: marshal auth info: %w", err)
	}
	raw := &txv1beta1.TxRaw{BodyBytes: bodyBytes, AuthInfoBytes: authBytes}
	for _, s := range b.Signers {
		var sb []byte
		switch mode {
		case SignModeDirect:
			sb, err = DirectSignBytes(bodyBytes, authBytes, b.ChainID, s.AccountNumber)
		case SignModeEIP191:
			sb, err = AminoSignBytes(b.ChainID, s.AccountNumber, s.Sequence, body, auth.Fee)
			sb = EIP191SignBytes(sb)
		default:
			sb, err = AminoSignBytes(b.ChainID, s.AccountNumber, s.Sequence, body, auth.Fee)
		}
		if err != nil {
			return nil, fmt.Errorf("build tx: %w", err)
		}
		sig, err := s.Key.Sign(sb)
		if err != nil {
			return nil, fmt.Errorf("build tx: %w", err)
		}
		raw.Signatures = append(raw.Signatures, sig)
	}
	return raw, nil
}

// DirectSignBytes is the SIGN_MODE_DIRECT payload: the encoded SignDoc.
func DirectSignBytes(bodyBytes, authInfoBytes []byte, chainID string, accountNumber uint64) ([]byte, error) {
	b, err := marshalOpts.Marshal(&txv1beta1.SignDoc{
		BodyBytes: bodyBytes, AuthInfoBytes: authInfoBytes, ChainId: chainID, AccountNumber: accountNumber,
	})
	if err != nil {
		return nil, fmt.Errorf("marshal sign doc: %w", err)
	}
	return b, nil
}

// Hash is the CometBFT tx hash: upper-case hex SHA-256 of the tx bytes.
func Hash(txBytes []byte) string {
	h := sha256.Sum256(txBytes)
	return strings.ToUpper(hex.EncodeToString(h[:]))
}

// SignerData is one decoded signer.
type SignerData struct {
	// PubKey is nil when the signer info carries no key or a key type we do not verify
	// (multisig, ed25519, ...); PubKeyAny keeps whatever was there.
	PubKey    *PubKey
	PubKeyAny *anypb.Any
	Sequence  uint64
	// Mode is the single sign mode; SIGN_MODE_UNSPECIFIED for multisig mode infos.
	Mode signingv1beta1.SignMode
}

// Address is the signer's account address, nil when the key type is unsupported.
func (s SignerData) Address() []byte {
	if s.PubKey == nil {
		return nil
	}
	return s.PubKey.Address()
}

// DecodedTx is a decoded TxRaw.
type DecodedTx struct {
	Raw      *txv1beta1.TxRaw
	Body     *txv1beta1.TxBody
	AuthInfo *txv1beta1.AuthInfo
	// Msgs are the body's messages resolved through the global registry, in order; a
	// message whose type URL is unknown stays an *anypb.Any.
	Msgs    []proto.Message
	Signers []SignerData
}

// Fee returns the fee (never nil).
func (d *DecodedTx) Fee() *txv1beta1.Fee {
	if d.AuthInfo.GetFee() == nil {
		return &txv1beta1.Fee{}
	}
	return d.AuthInfo.Fee
}

// DecodeError is a Decode failure: the part of the tx (PartTxRaw, PartTxBody, PartAuthInfo)
// whose bytes did not parse, and why. It wraps ErrTxDecode.
type DecodeError struct {
	Part string
	Err  error
}

// The parts of a tx a DecodeError names.
const (
	PartTxRaw    = "tx raw"
	PartTxBody   = "tx body"
	PartAuthInfo = "auth info"
)

func (e *DecodeError) Error() string { return fmt.Sprintf("%v: %s: %v", ErrTxDecode, e.Part, e.Err) }

// Unwrap gives ErrTxDecode and the protobuf error.
func (e *DecodeError) Unwrap() []error { return []error{ErrTxDecode, e.Err} }

// Decode parses TxRaw bytes with its body and auth info, and resolves the body's messages.
func Decode(txBytes []byte) (*DecodedTx, error) {
	d, err := DecodeEnvelope(txBytes)
	if err != nil {
		return nil, err
	}
	for _, a := range d.Body.Messages {
		m, err := UnpackAny(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTxDecode, err)
		}
		d.Msgs = append(d.Msgs, m)
	}
	return d, nil
}

// DecodeEnvelope is Decode without resolving the messages (Msgs stays nil): a node checks a
// tx's signature count and timeout before its ante handler unpacks the messages, so a
// message that does not decode fails there, with the node's own error.
func DecodeEnvelope(txBytes []byte) (*DecodedTx, error) {
	raw := &txv1beta1.TxRaw{}
	if err := proto.Unmarshal(txBytes, raw); err != nil {
		return nil, &DecodeError{Part: PartTxRaw, Err: err}
	}
	body := &txv1beta1.TxBody{}
	if err := proto.Unmarshal(raw.BodyBytes, body); err != nil {
		return nil, &DecodeError{Part: PartTxBody, Err: err}
	}
	auth := &txv1beta1.AuthInfo{}
	if err := proto.Unmarshal(raw.AuthInfoBytes, auth); err != nil {
		return nil, &DecodeError{Part: PartAuthInfo, Err: err}
	}
	d := &DecodedTx{Raw: raw, Body: body, AuthInfo: auth}
	for _, si := range auth.SignerInfos {
		sd := SignerData{PubKeyAny: si.PublicKey, Sequence: si.Sequence}
		if s := si.GetModeInfo().GetSingle(); s != nil {
			sd.Mode = s.Mode
		}
		if si.PublicKey != nil {
			if pk, err := PubKeyFromAny(si.PublicKey); err == nil {
				sd.PubKey = &pk
			}
		}
		d.Signers = append(d.Signers, sd)
	}
	return d, nil
}

// UnpackAny resolves an Any through the global registry. Unknown type URLs are not an
// error: the Any itself is returned. Known types with undecodable bytes are.
func UnpackAny(a *anypb.Any) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByURL(a.TypeUrl)
	if err != nil {
		return a, nil
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(a.Value, m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", a.TypeUrl, err)
	}
	return m, nil
}

// Account is what signature verification needs to know about a signer's account.
type Account struct {
	Number   uint64
	Sequence uint64
}

// AccountLookup returns the on-chain account of an address; ok=false for an account
// that does not exist yet.
type AccountLookup func(addr []byte) (acc Account, ok bool)

// VerifyOption adjusts VerifySignatures.
type VerifyOption func(*verifyConfig)

type verifyConfig struct {
	eth *EthConfig
}

// WithEthereum accepts minievm's Ethereum-wrapped txs (sign mode 9999), verifying the
// Ethereum signature of the tx rebuilt with CosmosToEthTx.
func WithEthereum(cfg EthConfig) VerifyOption {
	return func(c *verifyConfig) { c.eth = &cfg }
}

// VerifySignatures checks every signature of tx against chainID and the signers'
// accounts, as the SDK ante handler does: one signature per signer info, a supported
// single-key public key, the signer info's sequence equal to the account's, and a valid
// signature in the signer's mode (direct, legacy amino JSON, or with WithEthereum the
// minievm Ethereum mode).
func VerifySignatures(tx *DecodedTx, chainID string, lookup AccountLookup, opts ...VerifyOption) error {
	var cfg verifyConfig
	for _, o := range opts {
		o(&cfg)
	}
	if len(tx.Signers) == 0 {
		return fmt.Errorf("%w: no signers", ErrUnauthorized)
	}
	if len(tx.Raw.Signatures) != len(tx.Signers) {
		return fmt.Errorf("%w: wrong number of signatures; expected %d, got %d",
			ErrUnauthorized, len(tx.Signers), len(tx.Raw.Signatures))
	}
	for i, s := range tx.Signers {
		if s.PubKey == nil {
			return fmt.Errorf("%w: signer %d: unsupported or missing public key", ErrInvalidPubKey, i)
		}
		acc, ok := lookup(s.PubKey.Address())
		if !ok {
			return fmt.Errorf("%w: signer %d account does not exist", ErrUnknownAddress, i)
		}
		if s.Sequence != acc.Sequence {
			return fmt.Errorf("%w: account sequence mismatch, expected %d, got %d",
				ErrWrongSequence, acc.Sequence, s.Sequence)
		}
		var sb []byte
		var err error
		switch s.Mode {
		case SignModeDirect:
			sb, err = DirectSignBytes(tx.Raw.BodyBytes, tx.Raw.AuthInfoBytes, chainID, acc.Number)
		case SignModeLegacyAminoJSON:
			sb, err = AminoSignBytes(chainID, acc.Number, s.Sequence, tx.Body, tx.Fee())
		case SignModeEIP191:
			sb, err = AminoSignBytes(chainID, acc.Number, s.Sequence, tx.Body, tx.Fee())
			sb = EIP191SignBytes(sb)
		case SignModeEthereum:
			if cfg.eth == nil {
				return fmt.Errorf("%w: signer %d: mode %d", ErrUnsupportedSignMode, i, int32(s.Mode))
			}
			if _, err := CosmosToEthTx(tx, *cfg.eth); err != nil {
				if errors.Is(err, ErrUnauthorized) {
					return err
				}
				return fmt.Errorf("%w: %w", ErrUnauthorized, err)
			}
			continue
		default:
			return fmt.Errorf("%w: signer %d: mode %d", ErrUnsupportedSignMode, i, int32(s.Mode))
		}
		if err != nil {
			return fmt.Errorf("%w: signer %d: %w", ErrUnauthorized, i, err)
		}
		if !s.PubKey.Verify(sb, tx.Raw.Signatures[i]) {
			return fmt.Errorf("%w: signature verification failed; please verify account number (%d), sequence (%d) and chain-id (%s)",
				ErrUnauthorized, acc.Number, acc.Sequence, chainID)
		}
	}
	return nil
}
