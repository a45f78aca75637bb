package ingest

import (
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/cosmos/btcutil/bech32"

	"github.com/rollgate/rollgate/internal/jsonx"
)

// Event is one ABCI event of a tx result, as CometBFT 0.38 serves it (attributes are plain
// strings, not base64).
type Event struct {
	Type       string           `json:"type"`
	Attributes []EventAttribute `json:"attributes,omitempty"`
}

// EventAttribute is one attribute of an Event. The JSON field order (key, value, index) is
// the one CometBFT's jsonpb marshaller emits; index is always present.
type EventAttribute struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Index bool   `json:"index"`
}

// Rollytics' patterns. The hex ones are shared verbatim in meaning: anchored for ordinary
// attribute values, unanchored inside Move event data (so `0x1::coin` yields 0x1).
var (
	anchoredHex = regexp.MustCompile(`^0x[a-fA-F0-9]{1,64}$`)
	moveHex     = regexp.MustCompile(`0x[a-fA-F0-9]{1,64}`)
)

// The chain's event types that VMs emit. They share their spelling with the VM kinds
// (chain/vmkind) but name events, not kinds: an EVM log event, a Move event, a Wasm contract
// event.
const (
	eventEVM  = "evm"
	eventMove = "move"
	eventWasm = "wasm"
)

// zeroTopicPrefix marks a 32-byte EVM log topic that carries a 20-byte address.
const zeroTopicPrefix = "0x000000000000000000000000"

// AccountExtractor finds the accounts a tx touched in its events, following rollytics' rules
// (docs/contract/indexer-rollytics.md §5), except that bech32 values are recognised with the configured prefix rather than
// a hard-coded `init`.
type AccountExtractor struct {
	prefix  string
	bech32R *regexp.Regexp
}

// NewAccountExtractor returns an extractor for bech32 addresses with the given human-readable
// prefix (e.g. "init").
func NewAccountExtractor(prefix string) *AccountExtractor {
	return &AccountExtractor{
		prefix: prefix,
		// 38 data chars = 20 bytes, 58 = 32 bytes, each with the 6-char checksum.
		bech32R: regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `1(?:[a-z0-9]{38}|[a-z0-9]{58})$`),
	}
}

// Extract returns the distinct raw addresses (20 or 32 bytes) found in events, in order of
// first appearance. Values that look like addresses but do not parse are ignored, as rollytics
// does; a malformed EVM log JSON is skipped rather than failing the block.
func (x *AccountExtractor) Extract(events []Event) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(candidate string) {
		addr, ok := x.ParseAddress(candidate)
		if !ok || seen[string(addr)] {
			return
		}
		seen[string(addr)] = true
		out = append(out, addr)
	}
	for _, ev := range events {
		for _, attr := range ev.Attributes {
			switch {
			case ev.Type == eventMove && attr.Key == "data":
				for _, m := range moveHex.FindAllString(attr.Value, -1) {
					add(m)
				}
			case ev.Type == eventEVM && attr.Key == "log":
				var log struct {
					Address string   `json:"address"`
					Topics  []string `json:"topics"`
				}
				if err := jsonx.Unmarshal([]byte(attr.Value), &log); err != nil {
					continue
				}
				add(log.Address)
				for i, topic := range log.Topics {
					if i > 0 && strings.HasPrefix(topic, zeroTopicPrefix) {
						add(topic)
					}
				}
			case attr.Key == "ret":
				// Return data of EVM calls is arbitrary bytes; rollytics never indexes it.
			default:
				// strings.Split(value, ",") without the slice, and the two anchored patterns
				// matched by hand: this loop runs over every attribute of every event.
				rest := attr.Value
				for more := true; more; {
					var piece string
					piece, rest, more = strings.Cut(rest, ",")
					if x.isBech32Candidate(piece) || isHexCandidate(piece) {
						add(piece)
					}
				}
			}
		}
	}
	return out
}

// isBech32Candidate is bech32R.MatchString: prefix, "1", then 38 or 58 of [a-z0-9].
func (x *AccountExtractor) isBech32Candidate(s string) bool {
	rest, ok := strings.CutPrefix(s, x.prefix+"1")
	if !ok || (len(rest) != 38 && len(rest) != 58) {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isHexCandidate is anchoredHex.MatchString: "0x" then 1 to 64 hex digits.
func isHexCandidate(s string) bool {
	rest, ok := strings.CutPrefix(s, "0x")
	if !ok || len(rest) < 1 || len(rest) > 64 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// ParseAddress normalises an account the way rollytics' AccAddressFromString does: bech32 with
// the configured prefix (20 or 32 bytes), else hex with or without 0x, left-trimmed of zeros
// and re-padded to 20 bytes (≤ 40 digits) or 32 bytes (≤ 64).
func (x *AccountExtractor) ParseAddress(s string) ([]byte, bool) {
	if !strings.HasPrefix(s, "0x") {
		if hrp, data, err := bech32.DecodeToBase256(s); err == nil && hrp == x.prefix && (len(data) == 20 || len(data) == 32) {
			return data, true
		}
	}
	h := strings.ToLower(strings.TrimLeft(strings.TrimPrefix(s, "0x"), "0"))
	switch {
	case len(h) <= 40:
		h = strings.Repeat("0", 40-len(h)) + h
	case len(h) <= 64:
		h = strings.Repeat("0", 64-len(h)) + h
	default:
		return nil, false
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Bech32 renders a raw address with the configured prefix.
func (x *AccountExtractor) Bech32(addr []byte) string {
	s, err := bech32.EncodeFromBase256(x.prefix, addr)
	if err != nil {
		return ""
	}
	return s
}
