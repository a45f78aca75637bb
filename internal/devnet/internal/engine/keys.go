package engine

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/crypto"

	//lint:ignore SA1019 Cosmos secp256k1 addresses are defined with RIPEMD-160.
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // SA1019: Cosmos secp256k1 addresses are defined as RIPEMD-160(SHA-256(pubkey))
)

// Public key type URLs.
const (
	EthPubKeyType    = "/initia.crypto.v1beta1.ethsecp256k1.PubKey"
	CosmosPubKeyType = "/cosmos.crypto.secp256k1.PubKey"
)

// Key is a secp256k1 key the devnet signs with. Eth keys (Initia's default, used by every
// chain kind here) hash sign bytes with Keccak-256 and derive Ethereum addresses; plain Cosmos
// keys hash with SHA-256 and derive RIPEMD160(SHA256(pubkey)) addresses.
type Key struct {
	priv *ecdsa.PrivateKey
	Eth  bool
}

// DeriveKey derives the index-th genesis key of a seed. The same seed gives the same keys on
// every chain of a network, so one user has one address everywhere.
func DeriveKey(seed uint64, index int, eth bool) (*Key, error) {
	for ctr := 0; ctr < 16; ctr++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("rollgate-devnet/key/%d/%d/%d", seed, index, ctr)))
		priv, err := crypto.ToECDSA(sum[:])
		if err == nil {
			return &Key{priv: priv, Eth: eth}, nil
		}
	}
	return nil, errors.New("derive key: no valid scalar")
}

// KeyFromHex loads a raw 32-byte private key.
func KeyFromHex(h string, eth bool) (*Key, error) {
	priv, err := crypto.HexToECDSA(strings.TrimPrefix(h, "0x"))
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	return &Key{priv: priv, Eth: eth}, nil
}

// Bytes is the raw 32-byte private key (to hand the key to txcodec).
func (k *Key) Bytes() []byte { return crypto.FromECDSA(k.priv) }

// ECDSA exposes the private key (for signing Ethereum transactions).
func (k *Key) ECDSA() *ecdsa.PrivateKey { return k.priv }

// PubKey is the compressed public key.
func (k *Key) PubKey() []byte { return crypto.CompressPubkey(&k.priv.PublicKey) }

// PubKeyType is the key's Any type URL.
func (k *Key) PubKeyType() string {
	if k.Eth {
		return EthPubKeyType
	}
	return CosmosPubKeyType
}

// Address is the 20-byte account address.
func (k *Key) Address() []byte {
	a, err := AddressOf(k.PubKeyType(), k.PubKey())
	if err != nil {
		// The key's own public key always has the shape AddressOf reads.
		panic(fmt.Sprintf("engine: address of own key: %v", err))
	}
	return a
}

// Sign signs SIGN_MODE_DIRECT sign bytes: 65 bytes r||s||v with v = 27+recovery id for eth
// keys (as Initia's keyring signs; the captured CLI txs end in 27/28), 64 bytes r||s otherwise.
func (k *Key) Sign(signBytes []byte) ([]byte, error) {
	if k.Eth {
		sig, err := crypto.Sign(crypto.Keccak256(signBytes), k.priv)
		if err != nil {
			return nil, err
		}
		sig[64] += 27
		return sig, nil
	}
	h := sha256.Sum256(signBytes)
	sig, err := crypto.Sign(h[:], k.priv)
	if err != nil {
		return nil, err
	}
	return sig[:64], nil
}

// AddressOf derives an account address from a public key.
func AddressOf(pubKeyType string, pub []byte) ([]byte, error) {
	switch pubKeyType {
	case EthPubKeyType:
		pk, err := crypto.DecompressPubkey(pub)
		if err != nil {
			return nil, fmt.Errorf("eth pubkey: %w", err)
		}
		return crypto.PubkeyToAddress(*pk).Bytes(), nil
	case CosmosPubKeyType:
		if len(pub) != 33 {
			return nil, errors.New("secp256k1 pubkey must be 33 bytes")
		}
		s := sha256.Sum256(pub)
		r := ripemd160.New()
		r.Write(s[:])
		return r.Sum(nil), nil
	}
	return nil, fmt.Errorf("unsupported public key type %s", pubKeyType)
}

// VerifyDirect checks a SIGN_MODE_DIRECT signature.
func VerifyDirect(pubKeyType string, pub, signBytes, sig []byte) bool {
	switch pubKeyType {
	case EthPubKeyType:
		if len(sig) != 65 && len(sig) != 64 {
			return false
		}
		return crypto.VerifySignature(pub, crypto.Keccak256(signBytes), sig[:64])
	case CosmosPubKeyType:
		if len(sig) != 64 {
			return false
		}
		h := sha256.Sum256(signBytes)
		return crypto.VerifySignature(pub, h[:], sig)
	}
	return false
}

// Bech32 encodes an address with a chain's prefix (address.Bech32). The engine's prefixes
// are checked when a chain is built (Config.defaults), so "" only answers a prefix no chain
// of the devnet has.
func Bech32(prefix string, addr []byte) string {
	s, err := address.Bech32(prefix, addr)
	if err != nil {
		return ""
	}
	return s
}

// ParseAddress accepts a bech32 address with the prefix, or a 0x hex address.
func ParseAddress(prefix, s string) ([]byte, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		b, err := hex.DecodeString(s[2:])
		if err != nil || len(b) != 20 {
			return nil, fmt.Errorf("invalid hex address %q", s)
		}
		return b, nil
	}
	hrp, data, err := bech32.DecodeNoLimit(s)
	if err != nil {
		return nil, fmt.Errorf("decoding bech32 failed: %w", err)
	}
	if hrp != prefix {
		return nil, fmt.Errorf("invalid Bech32 prefix; expected %s, got %s", prefix, hrp)
	}
	b, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return nil, fmt.Errorf("decoding bech32 failed: %w", err)
	}
	return b, nil
}
