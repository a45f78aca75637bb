// Package opinit is the devnet's OPinit bridge: the L1 `ophost` module (bridges from
// genesis, token deposits into the bridge account, withdrawal claims) and the L2
// `opchild` module (deposit finalization by the bridge executor with signed-tx hooks,
// withdrawals), emitting OPinit v1.3's events in their real attribute order and serving
// the bridge REST queries (docs/chain-events.md §5).
package opinit

import (
	"crypto/sha3"
	"encoding/base64"
	"encoding/binary"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Bridge is one OPinit bridge as created on L1 (the devnet creates them at genesis).
type Bridge struct {
	ID        uint64
	L2ChainID string
	// Proposer, Challenger and Submitter are L1 bech32 addresses (informational).
	Proposer              string
	Challenger            string
	Submitter             string
	SubmissionInterval    time.Duration
	FinalizationPeriod    time.Duration
	SubmissionStartHeight uint64
	OracleEnabled         bool
	// Metadata is the bridge config metadata (the real chains put the permissioned IBC
	// channels there).
	Metadata []byte
}

// L2Denom is the L2 denom of an L1 denom bridged through bridge id.
func L2Denom(bridgeID uint64, l1Denom string) string { return denom.L2(bridgeID, l1Denom) }

// BridgeAddress is the L1 bridge account: address.Module("ophost", be64(bridge id)), i.e.
// SHA-256(SHA-256("module") ‖ "ophost" ‖ 0x00 ‖ be64(id)), 32 bytes.
func BridgeAddress(bridgeID uint64) []byte {
	return address.Module("ophost", binary.BigEndian.AppendUint64(nil, bridgeID))
}

// WithdrawalHash is ophost's GenerateWithdrawalHash: SHA3-256 applied twice to
// be64(bridge_id) ‖ be64(l2_sequence) ‖ SHA3(from) ‖ SHA3(to) ‖ SHA3(base_denom) ‖ be64(amount).
func WithdrawalHash(bridgeID, sequence uint64, from, to, baseDenom string, amount uint64) [32]byte {
	buf := binary.BigEndian.AppendUint64(nil, bridgeID)
	buf = binary.BigEndian.AppendUint64(buf, sequence)
	for _, s := range []string{from, to, baseDenom} {
		h := sha3.Sum256([]byte(s))
		buf = append(buf, h[:]...)
	}
	buf = binary.BigEndian.AppendUint64(buf, amount)
	first := sha3.Sum256(buf)
	return sha3.Sum256(first[:])
}

// bridgeConfigJSON is OPinit v1.3's BridgeConfig as the gateway renders it (proto field
// order, defaults emitted).
type bridgeConfigJSON struct {
	Challenger            string        `json:"challenger"`
	Proposer              string        `json:"proposer"`
	BatchInfo             batchInfoJSON `json:"batch_info"`
	SubmissionInterval    string        `json:"submission_interval"`
	FinalizationPeriod    string        `json:"finalization_period"`
	SubmissionStartHeight string        `json:"submission_start_height"`
	OracleEnabled         bool          `json:"oracle_enabled"`
	Metadata              string        `json:"metadata"`
}

type batchInfoJSON struct {
	Submitter string `json:"submitter"`
	ChainType string `json:"chain_type"`
}

func bridgeConfig(b Bridge) bridgeConfigJSON {
	return bridgeConfigJSON{
		Challenger:            b.Challenger,
		Proposer:              b.Proposer,
		BatchInfo:             batchInfoJSON{Submitter: b.Submitter, ChainType: "INITIA"},
		SubmissionInterval:    durationJSON(b.SubmissionInterval),
		FinalizationPeriod:    durationJSON(b.FinalizationPeriod),
		SubmissionStartHeight: strconv.FormatUint(b.SubmissionStartHeight, 10),
		OracleEnabled:         b.OracleEnabled,
		Metadata:              base64.StdEncoding.EncodeToString(b.Metadata),
	}
}

func durationJSON(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

func attr(k, v string) sim.Attribute { return sim.Attribute{Key: k, Value: v, Index: true} }

func event(typ string, kv ...string) sim.Event {
	ev := sim.Event{Type: typ}
	for i := 0; i+1 < len(kv); i += 2 {
		ev.Attributes = append(ev.Attributes, attr(kv[i], kv[i+1]))
	}
	return ev
}

func coded(codespace string, code uint32, msg string) error {
	return &sim.CodedError{Codespace: codespace, Code: code, Log: msg}
}

func bech32(prefix string, b []byte) string {
	s, err := address.Bech32(prefix, b)
	if err != nil {
		return ""
	}
	return s
}

func parseAmount(s string) (*big.Int, bool) {
	a, ok := new(big.Int).SetString(s, 10)
	if !ok || a.Sign() < 0 {
		return nil, false
	}
	return a, true
}

func getUint(kv sim.KVReader, key string) uint64 {
	b, ok := kv.Get(key)
	if !ok {
		return 0
	}
	n, _ := strconv.ParseUint(string(b), 10, 64)
	return n
}

func setUint(kv sim.KV, key string, n uint64) { kv.Set(key, []byte(strconv.FormatUint(n, 10))) }

func with(at sim.QueryAt, fn func(http.ResponseWriter, *http.Request, sim.Query)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		fn(w, r, q)
	}
}

type pagination struct {
	NextKey *string `json:"next_key"`
	Total   string  `json:"total"`
}
