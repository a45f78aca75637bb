// Package denom implements the denomination formulas of the chains we speak to: ICS-20
// voucher denoms (ibc/HASH) with their trace paths, and OPinit L2 denoms (l2/HASH).
package denom

import (
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every parse failure of this package.
var ErrInvalid = errors.New("invalid denom")

// IBCHash returns the upper-case hex SHA-256 of a full trace path such as
// "transfer/channel-0/uusdc" (the part after "ibc/").
func IBCHash(fullPath string) string {
	sum := sha256.Sum256([]byte(fullPath))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// IBC returns the local voucher denom for base received through path
// (e.g. "transfer/channel-0"; several hops are joined with "/"). An empty path
// means base is native and is returned unchanged.
func IBC(path, base string) string {
	if path == "" {
		return base
	}
	return "ibc/" + IBCHash(path+"/"+base)
}

// L2 returns the OPinit L2 denom of an L1 denom deposited through bridge bridgeID:
// "l2/" + lower hex SHA3-256(big-endian uint64 bridge id ‖ l1 denom).
func L2(bridgeID uint64, l1Denom string) string {
	buf := make([]byte, 8, 8+len(l1Denom))
	binary.BigEndian.PutUint64(buf, bridgeID)
	buf = append(buf, l1Denom...)
	sum := sha3.Sum256(buf)
	return "l2/" + hex.EncodeToString(sum[:])
}

// IsIBC reports whether d is an ibc/ voucher denom with a well-formed hash.
func IsIBC(d string) bool {
	h, ok := strings.CutPrefix(d, "ibc/")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// Hop is one port/channel pair of a trace.
type Hop struct {
	Port    string
	Channel string
}

func (h Hop) String() string { return h.Port + "/" + h.Channel }

// Trace is a denomination trace: the hops a token took, most recent first, and its
// base denom on the origin chain. Path is "port/channel/port/channel..." (no trailing
// slash), empty for a native token.
type Trace struct {
	Path string
	Base string
}

// FullPath is the string sent as the ICS-20 packet denom: "path/base", or base alone.
func (t Trace) FullPath() string {
	if t.Path == "" {
		return t.Base
	}
	return t.Path + "/" + t.Base
}

// IBCDenom is the local denom of the trace: base when native, else ibc/HASH(full path).
func (t Trace) IBCDenom() string { return IBC(t.Path, t.Base) }

// Hops splits Path into its port/channel pairs.
func (t Trace) Hops() []Hop {
	if t.Path == "" {
		return nil
	}
	parts := strings.Split(t.Path, "/")
	hops := make([]Hop, 0, len(parts)/2)
	for i := 0; i+1 < len(parts); i += 2 {
		hops = append(hops, Hop{Port: parts[i], Channel: parts[i+1]})
	}
	return hops
}

// IsNative reports whether the trace has no hops.
func (t Trace) IsNative() bool { return t.Path == "" }

// Prepend returns the trace after the token is received on the chain end port/channel
// (the receiving side of a hop that does not unwind).
func (t Trace) Prepend(port, channel string) Trace {
	p := port + "/" + channel
	if t.Path != "" {
		p += "/" + t.Path
	}
	return Trace{Path: p, Base: t.Base}
}

// HasPrefix reports whether the most recent hop is port/channel, i.e. whether sending
// the token out through that channel returns it towards its origin.
func (t Trace) HasPrefix(port, channel string) bool {
	p := port + "/" + channel
	return t.Path == p || strings.HasPrefix(t.Path, p+"/")
}

// Unwind removes the most recent hop if it is port/channel and reports whether it did.
func (t Trace) Unwind(port, channel string) (Trace, bool) {
	if !t.HasPrefix(port, channel) {
		return t, false
	}
	p := strings.TrimPrefix(strings.TrimPrefix(t.Path, port+"/"+channel), "/")
	return Trace{Path: p, Base: t.Base}, true
}

// ParseTrace splits a full denom path the way ICS-20 does: leading "port/channel-N"
// pairs are trace only while the second element is a valid channel identifier; the rest
// (which may itself contain "/", e.g. "l2/…" or "factory/…/…") is the base denom.
func ParseTrace(fullPath string) (Trace, error) {
	if fullPath == "" {
		return Trace{}, fmt.Errorf("%w: empty", ErrInvalid)
	}
	parts := strings.Split(fullPath, "/")
	n := 0
	for n+2 < len(parts) && parts[n] != "" && isChannelID(parts[n+1]) {
		n += 2
	}
	base := strings.Join(parts[n:], "/")
	if base == "" {
		return Trace{}, fmt.Errorf("%w: %q has no base denom", ErrInvalid, fullPath)
	}
	return Trace{Path: strings.Join(parts[:n], "/"), Base: base}, nil
}

// ReceiveDenom is the ICS-20 receive rule: given the packet's denom (the sender-side
// full path) and the packet's source and destination port/channel, it returns the trace
// as known on the receiving chain and whether the token is returning (unwinding), in
// which case funds come out of escrow instead of being minted.
func ReceiveDenom(packetDenom, srcPort, srcChannel, dstPort, dstChannel string) (Trace, bool, error) {
	t, err := ParseTrace(packetDenom)
	if err != nil {
		return Trace{}, false, err
	}
	if u, ok := t.Unwind(srcPort, srcChannel); ok {
		return u, true, nil
	}
	return t.Prepend(dstPort, dstChannel), false, nil
}

// isChannelID accepts "channel-<digits>", the identifier format ICS-20 path parsing
// checks for.
func isChannelID(s string) bool {
	d, ok := strings.CutPrefix(s, "channel-")
	if !ok || d == "" {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
