// Package address converts Cosmos account addresses between their byte, bech32 and
// hex forms, and implements the input normalisation the rollytics applies to
// account parameters (so our API accepts exactly what rollytics accepts).
package address

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cosmos/btcutil/bech32"
)

// MaxBech32Length is the decoding limit: BIP-173's 90 characters are too few for
// 32-byte module and contract addresses with long prefixes, so Cosmos uses 1023.
const MaxBech32Length = 1023

// ErrInvalid is wrapped by every parse failure of this package.
var ErrInvalid = errors.New("invalid address")

// Bech32 encodes b with the human-readable prefix hrp.
func Bech32(hrp string, b []byte) (string, error) {
	conv, err := bech32.ConvertBits(b, 8, 5, true)
	if err != nil {
		return "", fmt.Errorf("%w: convert bits: %w", ErrInvalid, err)
	}
	s, err := bech32.Encode(hrp, conv)
	if err != nil {
		return "", fmt.Errorf("%w: bech32 encode: %w", ErrInvalid, err)
	}
	return s, nil
}

// DecodeBech32 returns the prefix and the bytes of a bech32 string.
func DecodeBech32(s string) (hrp string, b []byte, err error) {
	hrp, data, err := bech32.Decode(s, MaxBech32Length)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %q: %w", ErrInvalid, s, err)
	}
	b, err = bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %q: %w", ErrInvalid, s, err)
	}
	return hrp, b, nil
}

// FromBech32 decodes s and checks that its prefix is hrp.
func FromBech32(hrp, s string) ([]byte, error) {
	got, b, err := DecodeBech32(s)
	if err != nil {
		return nil, err
	}
	if got != hrp {
		return nil, fmt.Errorf("%w: %q: prefix %q, want %q", ErrInvalid, s, got, hrp)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: %q: empty", ErrInvalid, s)
	}
	return b, nil
}

// ValidateBech32 checks that s is a bech32 address with prefix hrp and, when
// allowedLens is not empty, that its byte length is one of them.
func ValidateBech32(hrp, s string, allowedLens ...int) error {
	b, err := FromBech32(hrp, s)
	if err != nil {
		return err
	}
	if len(allowedLens) == 0 {
		return nil
	}
	for _, n := range allowedLens {
		if len(b) == n {
			return nil
		}
	}
	return fmt.Errorf("%w: %q: %d bytes, want one of %v", ErrInvalid, s, len(b), allowedLens)
}

// Hex renders b as lower-case hex with a 0x prefix.
func Hex(b []byte) string { return "0x" + hex.EncodeToString(b) }

// ParseHex decodes hex with or without a 0x/0X prefix, in any case. An odd number of
// digits gets a leading zero, as rollytics' HexToBytes does.
func ParseHex(s string) ([]byte, error) {
	h := strip0x(s)
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInvalid, s, err)
	}
	return b, nil
}

func strip0x(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}

// NormalizeHex applies rollytics' hex account normalisation: strip 0x, trim every
// leading zero, then left-pad to 20 bytes (≤40 digits) or 32 bytes (≤64 digits).
// So "0x1" is the 20-byte address 0x00…01, and a 32-byte EVM topic whose first 12
// bytes are zero becomes the 20-byte address it carries.
func NormalizeHex(s string) ([]byte, error) {
	h := strings.ToLower(strings.TrimLeft(strip0x(s), "0"))
	switch {
	case len(h) <= 40:
		h = strings.Repeat("0", 40-len(h)) + h
	case len(h) <= 64:
		h = strings.Repeat("0", 64-len(h)) + h
	default:
		return nil, fmt.Errorf("%w: %q: longer than 32 bytes", ErrInvalid, s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrInvalid, s, err)
	}
	return b, nil
}

// Parse accepts an account the way rollytics' AccAddressFromString does: a string not
// starting with 0x is first tried as bech32 with prefix hrp (20 or 32 bytes); otherwise,
// or if that fails, it goes through NormalizeHex.
func Parse(hrp, s string) ([]byte, error) {
	if !strings.HasPrefix(s, "0x") {
		if b, err := FromBech32(hrp, s); err == nil && (len(b) == 20 || len(b) == 32) {
			return b, nil
		}
	}
	return NormalizeHex(s)
}

// ToBech32 is Parse followed by Bech32: any accepted input rendered as bech32.
func ToBech32(hrp, s string) (string, error) {
	b, err := Parse(hrp, s)
	if err != nil {
		return "", err
	}
	return Bech32(hrp, b)
}

// ParseAccount parses an account address as chain messages carry it: bech32 with the chain's
// prefix, or 0x hex of exactly 20 or 32 bytes. Unlike Parse it accepts no bare or padded hex,
// because a chain's address codec rejects those.
func ParseAccount(hrp, s string) ([]byte, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		b, err := ParseHex(s)
		if err != nil {
			return nil, err
		}
		if len(b) != 20 && len(b) != 32 {
			return nil, fmt.Errorf("%w: %q: %d bytes", ErrInvalid, s, len(b))
		}
		return b, nil
	}
	return FromBech32(hrp, s)
}
