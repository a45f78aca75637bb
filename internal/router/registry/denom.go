package registry

import (
	"strings"

	"github.com/rollgate/rollgate/internal/chain/denom"
)

// IBCDenom is the voucher denom of a full ICS-20 trace path ("transfer/channel-0/uatom"):
// "ibc/" + upper-case hex SHA-256 of the path (internal/chain/denom). A path without any
// port/channel pair is a native denom and is returned unchanged.
func IBCDenom(path string) string {
	if trace, _ := SplitPath(path); trace == "" {
		return path
	}
	return "ibc/" + denom.IBCHash(path)
}

// L2Denom is the OPinit denom an L1 denom gets on the rollup of bridgeID:
// "l2/" + lower-case hex SHA3-256(big-endian uint64 bridge id ‖ L1 denom).
func L2Denom(bridgeID uint64, l1Denom string) string { return denom.L2(bridgeID, l1Denom) }

// SplitPath splits a full ICS-20 denom path into its trace ("transfer/channel-0/transfer/channel-3")
// and base denom. Pairs count as trace only while the second element is a channel identifier,
// so base denoms containing slashes ("l2/…", "factory/…/…") survive.
func SplitPath(path string) (trace, base string) {
	parts := strings.Split(path, "/")
	i := 0
	for i+2 < len(parts) && parts[i] != "" && isChannelID(parts[i+1]) {
		i += 2
	}
	if i == 0 {
		return "", path
	}
	return strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
}

func isChannelID(s string) bool {
	rest, ok := strings.CutPrefix(s, "channel-")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ReceivedPath is the full path a token with sender-side path `path` has on the receiving chain
// when sent from the sender's channel srcChannel to the receiver's channel dstChannel: the
// sender's prefix is stripped when the token goes home (unwinding), otherwise the receiver's
// prefix is added.
func ReceivedPath(path, srcPort, srcChannel, dstPort, dstChannel string) string {
	if rest, ok := strings.CutPrefix(path, srcPort+"/"+srcChannel+"/"); ok {
		return rest
	}
	return dstPort + "/" + dstChannel + "/" + path
}
