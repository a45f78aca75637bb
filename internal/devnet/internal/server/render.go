// Package server serves a devnet chain over the real protocols: CometBFT JSON-RPC (URI GET and
// JSON-RPC POST, batches included) and Cosmos REST, with the byte shapes of a real node
// (int64 as strings, base64 bytes, upper-case hex hashes, the captured error bodies).
package server

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// ordered is a JSON object that keeps its key order (the real nodes' field order).
type ordered []kv

type kv struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	return jsonx.Marshal(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

// JSONObject lets jsonx write a nested o in place (the same bytes as MarshalJSON).
func (o ordered) JSONObject() (int, func(i int) (string, any), bool) {
	return len(o), func(i int) (string, any) { return o[i].k, o[i].v }, true
}

func upperHex(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }
func b64(b []byte) string      { return base64.StdEncoding.EncodeToString(b) }
func i64(v int64) string       { return strconv.FormatInt(v, 10) }
func rfc3339(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// --- CometBFT shapes ---

func cometBlockID(id engine.BlockID) ordered {
	return ordered{{"hash", upperHex(id.Hash)}, {"parts", ordered{{"total", id.PartsTotal}, {"hash", upperHex(id.PartsHash)}}}}
}

func cometHeader(b *engine.Block) ordered {
	return ordered{
		{"version", ordered{{"block", "11"}}},
		{"chain_id", b.ChainID},
		{"height", i64(b.Height)},
		{"time", rfc3339(b.Time)},
		{"last_block_id", cometBlockID(b.LastBlockID)},
		{"last_commit_hash", upperHex(b.LastCommitHash)},
		{"data_hash", upperHex(b.DataHash)},
		{"validators_hash", upperHex(b.ValidatorsHash)},
		{"next_validators_hash", upperHex(b.NextValidatorsHash)},
		{"consensus_hash", upperHex(b.ConsensusHash)},
		{"app_hash", upperHex(emptyHash(b.AppHash))},
		{"last_results_hash", upperHex(b.LastResultsHash)},
		{"evidence_hash", upperHex(b.EvidenceHash)},
		{"proposer_address", upperHex(b.ProposerAddress)},
	}
}

// emptyHash renders the genesis app hash the way CometBFT does (SHA-256 of nothing).
func emptyHash(h []byte) []byte {
	if len(h) == 0 {
		e, _ := hex.DecodeString("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
		return e
	}
	return h
}

func txsB64(b *engine.Block) []string {
	out := make([]string, 0, len(b.Txs))
	for _, t := range b.Txs {
		out = append(out, b64(t))
	}
	return out
}

func cometLastCommit(b *engine.Block) ordered {
	sigs := []any{}
	if b.Height > 1 {
		sigs = append(sigs, ordered{{"block_id_flag", 2}, {"validator_address", upperHex(b.ProposerAddress)},
			{"timestamp", rfc3339(b.LastCommitTime)}, {"signature", b64(b.LastCommitSignature)}})
	}
	return ordered{{"height", i64(b.LastCommitHeight)}, {"round", 0}, {"block_id", cometBlockID(b.LastBlockID)}, {"signatures", sigs}}
}

func cometBlock(b *engine.Block) ordered {
	return ordered{
		{"block_id", cometBlockID(b.ID)},
		{"block", ordered{
			{"header", cometHeader(b)},
			{"data", ordered{{"txs", txsB64(b)}}},
			{"evidence", ordered{{"evidence", []any{}}}},
			{"last_commit", cometLastCommit(b)},
		}},
	}
}

func events(evs []sim.Event) any {
	if evs == nil {
		return []any{}
	}
	out := make([]any, 0, len(evs))
	for _, e := range evs {
		attrs := make([]any, 0, len(e.Attributes))
		for _, a := range e.Attributes {
			attrs = append(attrs, ordered{{"key", a.Key}, {"value", a.Value}, {"index", a.Index}})
		}
		out = append(out, ordered{{"type", e.Type}, {"attributes", attrs}})
	}
	return out
}

func execResult(r engine.TxResult) ordered {
	var data any
	if len(r.Data) > 0 {
		data = b64(r.Data)
	}
	var evs any
	if r.Events != nil {
		evs = events(r.Events)
	}
	return ordered{
		{"code", r.Code}, {"data", data}, {"log", r.Log}, {"info", r.Info},
		{"gas_wanted", i64(r.GasWanted)}, {"gas_used", i64(r.GasUsed)},
		{"events", evs}, {"codespace", r.Codespace},
	}
}

var consensusParams = ordered{
	{"block", ordered{{"max_bytes", "22020096"}, {"max_gas", "-1"}}},
	{"evidence", ordered{{"max_age_num_blocks", "100000"}, {"max_age_duration", "172800000000000"}, {"max_bytes", "1048576"}}},
	{"validator", ordered{{"pub_key_types", []string{"ed25519"}}}},
	{"version", ordered{}},
	{"abci", ordered{}},
}

func cometBlockResults(b *engine.Block) ordered {
	var txs any
	if len(b.Results) > 0 {
		rs := make([]any, 0, len(b.Results))
		for _, r := range b.Results {
			rs = append(rs, execResult(r))
		}
		txs = rs
	}
	var fin any
	if len(b.FinalizeEvents) > 0 {
		fin = events(b.FinalizeEvents)
	}
	return ordered{
		{"height", i64(b.Height)}, {"txs_results", txs}, {"finalize_block_events", fin},
		{"validator_updates", nil}, {"consensus_param_updates", consensusParams},
		{"app_hash", b64(b.ResultAppHash)},
	}
}

func cometTx(b *engine.Block, i int) ordered {
	return ordered{
		{"hash", upperHex(b.TxHashes[i][:])}, {"height", i64(b.Height)}, {"index", i},
		{"tx_result", execResult(b.Results[i])}, {"tx", b64(b.Txs[i])},
	}
}

// --- Cosmos REST shapes ---

func restBlockID(id engine.BlockID) ordered {
	return ordered{{"hash", b64(id.Hash)}, {"part_set_header", ordered{{"total", id.PartsTotal}, {"hash", b64(id.PartsHash)}}}}
}

func restBlock(b *engine.Block, prefix string, sdk bool) ordered {
	h := ordered{
		{"version", ordered{{"block", "11"}, {"app", "0"}}},
		{"chain_id", b.ChainID}, {"height", i64(b.Height)}, {"time", rfc3339(b.Time)},
		{"last_block_id", restBlockID(b.LastBlockID)},
		{"last_commit_hash", b64(b.LastCommitHash)}, {"data_hash", b64(b.DataHash)},
		{"validators_hash", b64(b.ValidatorsHash)}, {"next_validators_hash", b64(b.NextValidatorsHash)},
		{"consensus_hash", b64(b.ConsensusHash)}, {"app_hash", b64(emptyHash(b.AppHash))},
		{"last_results_hash", b64(b.LastResultsHash)}, {"evidence_hash", b64(b.EvidenceHash)},
	}
	if sdk {
		h = append(h, kv{"proposer_address", engine.Bech32(prefix+"valcons", b.ProposerAddress)})
	} else {
		h = append(h, kv{"proposer_address", b64(b.ProposerAddress)})
	}
	sigs := []any{}
	if b.Height > 1 {
		sigs = append(sigs, ordered{{"block_id_flag", "BLOCK_ID_FLAG_COMMIT"}, {"validator_address", b64(b.ProposerAddress)},
			{"timestamp", rfc3339(b.LastCommitTime)}, {"signature", b64(b.LastCommitSignature)}})
	}
	return ordered{
		{"header", h},
		{"data", ordered{{"txs", txsB64(b)}}},
		{"evidence", ordered{{"evidence", []any{}}}},
		{"last_commit", ordered{{"height", i64(b.LastCommitHeight)}, {"round", 0}, {"block_id", restBlockID(b.LastBlockID)}, {"signatures", sigs}}},
	}
}

func coinsJSON(cs []engine.Coin) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, ordered{{"denom", c.Denom}, {"amount", c.Amount.String()}})
	}
	return out
}

// txJSON renders a tx as the REST gateway does, through txcodec (checked against every captured tx).
func txJSON(raw []byte, withType bool) (json.RawMessage, error) {
	if withType {
		return txcodec.TxAnyJSON(raw)
	}
	return txcodec.TxJSON(raw)
}

func txResponse(b *engine.Block, i int) (ordered, error) {
	tj, err := txJSON(b.Txs[i], true)
	if err != nil {
		return nil, err
	}
	r := b.Results[i]
	return ordered{
		{"height", i64(b.Height)}, {"txhash", upperHex(b.TxHashes[i][:])}, {"codespace", r.Codespace}, {"code", r.Code},
		{"data", upperHex(r.Data)}, {"raw_log", r.Log}, {"logs", []any{}}, {"info", r.Info},
		{"gas_wanted", i64(r.GasWanted)}, {"gas_used", i64(r.GasUsed)}, {"tx", tj},
		{"timestamp", b.Time.UTC().Truncate(time.Second).Format(time.RFC3339)}, {"events", events(r.Events)},
	}, nil
}
