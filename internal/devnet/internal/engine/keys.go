package engine

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// Public key type URLs.
const (
	EthPubKeyType    = txcodec.EthSecp256k1PubKeyTypeURL
	CosmosPubKeyType = txcodec.Secp256k1PubKeyTypeURL
)

// Key is a secp256k1 key the devnet signs with, a txcodec key of one of the two schemes: eth
// keys (Initia's default, used by every chain kind here) hash sign bytes with Keccak-256 and
// derive Ethereum addresses; plain Cosmos keys hash with SHA-256 and derive
// RIPEMD160(SHA256(pubkey)) addresses.
type Key struct {
	priv *txcodec.PrivKey
	// ecdsa is the same key for go-ethereum, which signs the EVM's Ethereum transactions.
	ecdsa *ecdsa.PrivateKey
	Eth   bool
}

// DeriveKey derives the index-th genesis key of a seed. The same seed gives the same keys on
// every chain of a network, so one user has one address everywhere.
func DeriveKey(seed uint64, index int, eth bool) (*Key, error) {
	typ := txcodec.Secp256k1
	if eth {
		typ = txcodec.EthSecp256k1
	}
	for ctr := 0; ctr < 16; ctr++ {
		sum := sha256.Sum256([]byte(fmt.Sprintf("rollgate-devnet/key/%d/%d/%d", seed, index, ctr)))
		priv, err := txcodec.NewPrivKey(typ, sum[:])
		if err != nil {
			continue // not a valid scalar: the next counter
		}
		e, err := crypto.ToECDSA(priv.Bytes())
		if err != nil {
			return nil, fmt.Errorf("derive key: %w", err)
		}
		return &Key{priv: priv, ecdsa: e, Eth: eth}, nil
	}
	return nil, errors.New("derive key: no valid scalar")
}

// Bytes is the raw 32-byte private key.
func (k *Key) Bytes() []byte { return k.priv.Bytes() }

// Priv is the key as txcodec signs with it.
func (k *Key) Priv() *txcodec.PrivKey { return k.priv }

// ECDSA exposes the private key (for signing Ethereum transactions).
func (k *Key) ECDSA() *ecdsa.PrivateKey { return k.ecdsa }

// PubKey is the compressed public key.
func (k *Key) PubKey() []byte { return k.priv.PubKey().Key }

// PubKeyType is the key's Any type URL.
func (k *Key) PubKeyType() string { return k.priv.PubKey().TypeURL() }

// Address is the 20-byte account address.
func (k *Key) Address() []byte { return k.priv.Address() }

// Sign signs sign bytes: 65 bytes r||s||v with v = 27+recovery id for eth keys (as Initia's
// keyring signs; the captured CLI txs end in 27/28), 64 bytes r||s otherwise.
func (k *Key) Sign(signBytes []byte) ([]byte, error) { return k.priv.Sign(signBytes) }

// pubKeyOf reads a signer's public key the way the engine accepts them: the two secp256k1
// schemes only.
func pubKeyOf(pubKeyType string, pub []byte) (txcodec.PubKey, error) {
	switch pubKeyType {
	case EthPubKeyType:
		if _, err := crypto.DecompressPubkey(pub); err != nil {
			return txcodec.PubKey{}, fmt.Errorf("eth pubkey: %w", err)
		}
		return txcodec.PubKey{Type: txcodec.EthSecp256k1, Key: pub}, nil
	case CosmosPubKeyType:
		if len(pub) != 33 {
			return txcodec.PubKey{}, errors.New("secp256k1 pubkey must be 33 bytes")
		}
		return txcodec.PubKey{Type: txcodec.Secp256k1, Key: pub}, nil
	}
	return txcodec.PubKey{}, fmt.Errorf("unsupported public key type %s", pubKeyType)
}

// AddressOf derives an account address from a public key.
func AddressOf(pubKeyType string, pub []byte) ([]byte, error) {
	pk, err := pubKeyOf(pubKeyType, pub)
	if err != nil {
		return nil, err
	}
	return pk.Address(), nil
}

// VerifyDirect checks a SIGN_MODE_DIRECT signature.
func VerifyDirect(pubKeyType string, pub, signBytes, sig []byte) bool {
	pk, err := pubKeyOf(pubKeyType, pub)
	return err == nil && pk.Verify(signBytes, sig)
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
