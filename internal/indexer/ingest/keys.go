package ingest

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // Cosmos addresses are defined with RIPEMD-160.
	"golang.org/x/crypto/sha3"
)

// pubKeyAddress derives the account (or consensus) address of a public key given as its Any
// type URL and raw key bytes, the way each key type's Address() does on chain:
// eth_secp256k1 → last 20 bytes of keccak256(uncompressed X‖Y) (so the address equals the EVM
// one); secp256k1 → ripemd160(sha256(compressed)); ed25519 → sha256(key)[:20].
func pubKeyAddress(typeURL string, key []byte) ([]byte, error) {
	switch {
	case strings.HasSuffix(typeURL, ".ethsecp256k1.PubKey"):
		pk, err := secp256k1.ParsePubKey(key)
		if err != nil {
			return nil, fmt.Errorf("eth_secp256k1 key: %w", err)
		}
		h := sha3.NewLegacyKeccak256()
		h.Write(pk.SerializeUncompressed()[1:])
		return h.Sum(nil)[12:], nil
	case typeURL == "/cosmos.crypto.secp256k1.PubKey":
		if len(key) != 33 {
			return nil, fmt.Errorf("secp256k1 key of %d bytes", len(key))
		}
		sum := sha256.Sum256(key)
		r := ripemd160.New()
		r.Write(sum[:])
		return r.Sum(nil), nil
	case typeURL == "/cosmos.crypto.ed25519.PubKey":
		if len(key) != 32 {
			return nil, fmt.Errorf("ed25519 key of %d bytes", len(key))
		}
		sum := sha256.Sum256(key)
		return sum[:20], nil
	default:
		return nil, fmt.Errorf("unsupported public key type %q", typeURL)
	}
}
