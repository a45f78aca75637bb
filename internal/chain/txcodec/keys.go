package txcodec

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	//lint:ignore SA1019 the Cosmos secp256k1 address formula is defined with RIPEMD-160
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // SA1019: Cosmos secp256k1 addresses are defined as RIPEMD-160(SHA-256(pubkey))
	"golang.org/x/crypto/sha3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	secp256k1pb "github.com/rollgate/rollgate/internal/chain/protos/cosmos/crypto/secp256k1"
	ethsecp256k1pb "github.com/rollgate/rollgate/internal/chain/protos/initia/crypto/v1beta1/ethsecp256k1"
)

// KeyType selects the signature scheme and address derivation of a key.
type KeyType int

const (
	// Secp256k1 is the Cosmos SDK key: address RIPEMD160(SHA256(compressed pubkey)),
	// 64-byte r||s low-S signatures over SHA256(sign bytes).
	Secp256k1 KeyType = iota + 1
	// EthSecp256k1 is Initia's key: address Keccak256(uncompressed pubkey[1:])[12:],
	// 65-byte r||s||v (v = 27+recovery id) signatures over Keccak256(sign bytes).
	EthSecp256k1
)

// Type URLs of the two public key kinds.
const (
	Secp256k1PubKeyTypeURL    = "/cosmos.crypto.secp256k1.PubKey"
	EthSecp256k1PubKeyTypeURL = "/initia.crypto.v1beta1.ethsecp256k1.PubKey"
)

func (t KeyType) String() string {
	switch t {
	case Secp256k1:
		return "secp256k1"
	case EthSecp256k1:
		return "eth_secp256k1"
	}
	return "KeyType(" + strconv.Itoa(int(t)) + ")"
}

// TypeURL is the Any type URL of public keys of this type.
func (t KeyType) TypeURL() string {
	switch t {
	case Secp256k1:
		return Secp256k1PubKeyTypeURL
	case EthSecp256k1:
		return EthSecp256k1PubKeyTypeURL
	}
	return ""
}

// ErrInvalidKey is wrapped by key parsing failures.
var ErrInvalidKey = errors.New("invalid key")

// PrivKey is a secp256k1 private key used with one of the two schemes.
type PrivKey struct {
	typ KeyType
	key *secp256k1.PrivateKey
}

// NewPrivKey wraps a 32-byte private scalar.
func NewPrivKey(typ KeyType, raw []byte) (*PrivKey, error) {
	if typ != Secp256k1 && typ != EthSecp256k1 {
		return nil, fmt.Errorf("%w: unknown key type %v", ErrInvalidKey, typ)
	}
	if len(raw) != 32 {
		return nil, fmt.Errorf("%w: private key is %d bytes, want 32", ErrInvalidKey, len(raw))
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(raw); overflow || s.IsZero() {
		return nil, fmt.Errorf("%w: private key out of range", ErrInvalidKey)
	}
	return &PrivKey{typ: typ, key: secp256k1.NewPrivateKey(&s)}, nil
}

// PrivKeyFromSeed derives a deterministic key from any string (for tests and the
// devnet's well-known accounts): the first SHA-256 chain value that is a valid scalar.
func PrivKeyFromSeed(typ KeyType, seed string) (*PrivKey, error) {
	h := sha256.Sum256([]byte(seed))
	for i := 0; i < 16; i++ {
		k, err := NewPrivKey(typ, h[:])
		if err == nil {
			return k, nil
		}
		if typ != Secp256k1 && typ != EthSecp256k1 {
			return nil, err
		}
		h = sha256.Sum256(h[:])
	}
	return nil, fmt.Errorf("%w: no valid scalar from seed", ErrInvalidKey)
}

// PrivKeyFromMnemonic derives a key with BIP-39 (empty passphrase) and BIP-32 along
// path, e.g. "m/44'/60'/0'/0/0" (Initia's HD path; coin type 118 is Cosmos'). With the
// mnemonic "test test test test test test test test test test test junk" this gives the
// accounts of the captured fixtures. The mnemonic's checksum is not verified.
func PrivKeyFromMnemonic(typ KeyType, mnemonic, path string) (*PrivKey, error) {
	words := strings.Join(strings.Fields(mnemonic), " ")
	seed, err := pbkdf2.Key(sha512.New, words, []byte("mnemonic"), 2048, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: bip39 seed: %w", ErrInvalidKey, err)
	}
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	master := mac.Sum(nil)
	key, chain := master[:32], master[32:]
	segs := strings.Split(path, "/")
	if len(segs) == 0 || segs[0] != "m" {
		return nil, fmt.Errorf("%w: derivation path %q must start with m", ErrInvalidKey, path)
	}
	for _, seg := range segs[1:] {
		hardened := strings.HasSuffix(seg, "'")
		n, err := strconv.ParseUint(strings.TrimSuffix(seg, "'"), 10, 31)
		if err != nil {
			return nil, fmt.Errorf("%w: derivation path %q: %w", ErrInvalidKey, path, err)
		}
		idx := uint32(n)
		var data []byte
		if hardened {
			idx |= 0x80000000
			data = append([]byte{0}, key...)
		} else {
			data = secp256k1.PrivKeyFromBytes(key).PubKey().SerializeCompressed()
		}
		data = binary.BigEndian.AppendUint32(data, idx)
		mac := hmac.New(sha512.New, chain)
		mac.Write(data)
		child := mac.Sum(nil)
		var il, k secp256k1.ModNScalar
		if overflow := il.SetByteSlice(child[:32]); overflow {
			return nil, fmt.Errorf("%w: derivation overflow at %s", ErrInvalidKey, seg)
		}
		k.SetByteSlice(key)
		k.Add(&il)
		if k.IsZero() {
			return nil, fmt.Errorf("%w: derivation gave zero key at %s", ErrInvalidKey, seg)
		}
		b := k.Bytes()
		key, chain = b[:], child[32:]
	}
	return NewPrivKey(typ, key)
}

// Type is the key's scheme.
func (k *PrivKey) Type() KeyType { return k.typ }

// Bytes is the 32-byte private scalar.
func (k *PrivKey) Bytes() []byte { return k.key.Serialize() }

// PubKey is the matching public key.
func (k *PrivKey) PubKey() PubKey {
	return PubKey{Type: k.typ, Key: k.key.PubKey().SerializeCompressed()}
}

// Address is the account address bytes of the key.
func (k *PrivKey) Address() []byte { return k.PubKey().Address() }

// Sign signs sign bytes (not a digest) with the key's scheme.
func (k *PrivKey) Sign(signBytes []byte) ([]byte, error) {
	digest := k.typ.digest(signBytes)
	// SignCompact is RFC 6979 deterministic and always produces low-S; its layout is
	// [27+recid(+4 if compressed)] || r || s.
	c := ecdsa.SignCompact(k.key, digest, false)
	switch k.typ {
	case Secp256k1:
		return append([]byte(nil), c[1:]...), nil
	case EthSecp256k1:
		// The captured chains' signatures end in 27+recid (0x1b/0x1c), not 0/1.
		sig := make([]byte, 65)
		copy(sig, c[1:])
		sig[64] = c[0]
		return sig, nil
	}
	return nil, fmt.Errorf("%w: unknown key type %v", ErrInvalidKey, k.typ)
}

func (t KeyType) digest(signBytes []byte) []byte {
	if t == EthSecp256k1 {
		h := sha3.NewLegacyKeccak256()
		h.Write(signBytes)
		return h.Sum(nil)
	}
	h := sha256.Sum256(signBytes)
	return h[:]
}

// PubKey is a compressed (33-byte) secp256k1 public key of a given scheme.
type PubKey struct {
	Type KeyType
	Key  []byte
}

// TypeURL is the Any type URL of the key.
func (p PubKey) TypeURL() string { return p.Type.TypeURL() }

// Address derives the account address bytes (20 bytes for both schemes).
func (p PubKey) Address() []byte {
	switch p.Type {
	case Secp256k1:
		s := sha256.Sum256(p.Key)
		r := ripemd160.New()
		r.Write(s[:])
		return r.Sum(nil)
	case EthSecp256k1:
		pk, err := secp256k1.ParsePubKey(p.Key)
		if err != nil {
			return nil
		}
		h := sha3.NewLegacyKeccak256()
		h.Write(pk.SerializeUncompressed()[1:])
		return h.Sum(nil)[12:]
	}
	return nil
}

// Verify checks sig over signBytes. Secp256k1 needs 64-byte r||s; EthSecp256k1 takes
// r||s with or without the trailing recovery byte (the recovery byte is ignored, as
// the chain does). High-S signatures are rejected for both, like the chains do.
func (p PubKey) Verify(signBytes, sig []byte) bool {
	switch {
	case p.Type == Secp256k1 && len(sig) == 64:
	case p.Type == EthSecp256k1 && (len(sig) == 64 || len(sig) == 65):
		sig = sig[:64]
	default:
		return false
	}
	pk, err := secp256k1.ParsePubKey(p.Key)
	if err != nil {
		return false
	}
	var r, s secp256k1.ModNScalar
	if r.SetByteSlice(sig[:32]) || s.SetByteSlice(sig[32:]) || r.IsZero() || s.IsZero() || s.IsOverHalfOrder() {
		return false
	}
	return ecdsa.NewSignature(&r, &s).Verify(p.Type.digest(signBytes), pk)
}

// Proto is the public key as its generated proto message.
func (p PubKey) Proto() proto.Message {
	if p.Type == EthSecp256k1 {
		return &ethsecp256k1pb.PubKey{Key: p.Key}
	}
	return &secp256k1pb.PubKey{Key: p.Key}
}

// Any packs the public key for SignerInfo.public_key.
func (p PubKey) Any() (*anypb.Any, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p.Proto())
	if err != nil {
		return nil, fmt.Errorf("marshal pubkey: %w", err)
	}
	return &anypb.Any{TypeUrl: p.TypeURL(), Value: b}, nil
}

// PubKeyFromAny unpacks a SignerInfo.public_key of either supported type.
func PubKeyFromAny(a *anypb.Any) (PubKey, error) {
	if a == nil {
		return PubKey{}, fmt.Errorf("%w: no public key", ErrInvalidKey)
	}
	var typ KeyType
	var msg interface {
		proto.Message
		GetKey() []byte
	}
	switch a.TypeUrl {
	case Secp256k1PubKeyTypeURL:
		typ, msg = Secp256k1, &secp256k1pb.PubKey{}
	case EthSecp256k1PubKeyTypeURL:
		typ, msg = EthSecp256k1, &ethsecp256k1pb.PubKey{}
	default:
		return PubKey{}, fmt.Errorf("%w: unsupported public key type %q", ErrInvalidKey, a.TypeUrl)
	}
	if err := proto.Unmarshal(a.Value, msg); err != nil {
		return PubKey{}, fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	if _, err := secp256k1.ParsePubKey(msg.GetKey()); err != nil || len(msg.GetKey()) != 33 {
		return PubKey{}, fmt.Errorf("%w: public key is not a 33-byte compressed point", ErrInvalidKey)
	}
	return PubKey{Type: typ, Key: msg.GetKey()}, nil
}

// Ed25519PubKeyTypeURL is the Any type URL of ed25519 keys (validators' consensus keys).
const Ed25519PubKeyTypeURL = "/cosmos.crypto.ed25519.PubKey"

// AddressOf derives the address of a public key given as its Any type URL and raw bytes, the
// way each key type's Address() does on chain: eth_secp256k1 (any `….ethsecp256k1.PubKey`,
// Initia's or Ethermint's) keccak-based, secp256k1 RIPEMD160(SHA256), and ed25519 (consensus
// keys, e.g. to map a block's proposer to its validator) SHA256(key)[:20].
func AddressOf(typeURL string, key []byte) ([]byte, error) {
	var typ KeyType
	switch {
	case strings.HasSuffix(typeURL, ".ethsecp256k1.PubKey"):
		typ = EthSecp256k1
	case typeURL == Secp256k1PubKeyTypeURL:
		typ = Secp256k1
	case typeURL == Ed25519PubKeyTypeURL:
		if len(key) != 32 {
			return nil, fmt.Errorf("%w: ed25519 key of %d bytes", ErrInvalidKey, len(key))
		}
		sum := sha256.Sum256(key)
		return sum[:20], nil
	default:
		return nil, fmt.Errorf("%w: unsupported public key type %q", ErrInvalidKey, typeURL)
	}
	if _, err := secp256k1.ParsePubKey(key); err != nil || len(key) != 33 {
		return nil, fmt.Errorf("%w: %s key of %d bytes", ErrInvalidKey, typ, len(key))
	}
	return PubKey{Type: typ, Key: key}.Address(), nil
}
