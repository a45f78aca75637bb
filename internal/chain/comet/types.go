package comet

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/jsonx"
)

// These types follow CometBFT 0.38's JSON encoding so the devnet can produce the same bytes:
// 64-bit integers as decimal strings, 32-bit ones as numbers, []byte as base64, hashes and
// addresses as upper-case hex, event attributes as plain strings.

// HexBytes is rendered as upper-case hex without 0x (hashes, addresses).
type HexBytes []byte

// MarshalJSON renders upper-case hex.
func (h HexBytes) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strings.ToUpper(hex.EncodeToString(h)) + `"`), nil
}

// UnmarshalJSON accepts hex of either case.
func (h *HexBytes) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonx.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("hex bytes: %w", err)
	}
	d, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return fmt.Errorf("hex bytes %q: %w", s, err)
	}
	*h = d
	return nil
}

// String renders upper-case hex.
func (h HexBytes) String() string { return strings.ToUpper(hex.EncodeToString(h)) }

// RPCRequest is a JSON-RPC 2.0 request as CometBFT accepts it.
type RPCRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// RPCResponse is CometBFT's JSON-RPC envelope (URI GETs answer with id -1).
type RPCResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is a JSON-RPC error; CometBFT puts the useful text in Data.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
	// HTTPStatus is the status the error came with (CometBFT uses 500), 0 inside batches.
	HTTPStatus int `json:"-"`
}

func (e *RPCError) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("comet RPC error %d (%s): %s", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("comet RPC error %d: %s", e.Code, e.Message)
}

// ProtocolVersion is part of NodeInfo.
type ProtocolVersion struct {
	P2P   uint64 `json:"p2p,string"`
	Block uint64 `json:"block,string"`
	App   uint64 `json:"app,string"`
}

// NodeInfo is the node's p2p identity.
type NodeInfo struct {
	ProtocolVersion ProtocolVersion `json:"protocol_version"`
	ID              string          `json:"id"`
	ListenAddr      string          `json:"listen_addr"`
	Network         string          `json:"network"`
	Version         string          `json:"version"`
	Channels        HexBytes        `json:"channels"`
	Moniker         string          `json:"moniker"`
	Other           NodeInfoOther   `json:"other"`
}

// NodeInfoOther holds NodeInfo's free-form settings.
type NodeInfoOther struct {
	TxIndex    string `json:"tx_index"`
	RPCAddress string `json:"rpc_address"`
}

// SyncInfo is the node's view of the chain.
type SyncInfo struct {
	LatestBlockHash     HexBytes  `json:"latest_block_hash"`
	LatestAppHash       HexBytes  `json:"latest_app_hash"`
	LatestBlockHeight   int64     `json:"latest_block_height,string"`
	LatestBlockTime     time.Time `json:"latest_block_time"`
	EarliestBlockHash   HexBytes  `json:"earliest_block_hash"`
	EarliestAppHash     HexBytes  `json:"earliest_app_hash"`
	EarliestBlockHeight int64     `json:"earliest_block_height,string"`
	EarliestBlockTime   time.Time `json:"earliest_block_time"`
	CatchingUp          bool      `json:"catching_up"`
}

// PubKey is an amino-JSON public key.
type PubKey struct {
	Type  string `json:"type"`
	Value []byte `json:"value"`
}

// ValidatorInfo is the node's own validator.
type ValidatorInfo struct {
	Address     HexBytes `json:"address"`
	PubKey      PubKey   `json:"pub_key"`
	VotingPower int64    `json:"voting_power,string"`
}

// ResultStatus is /status.
type ResultStatus struct {
	NodeInfo      NodeInfo      `json:"node_info"`
	SyncInfo      SyncInfo      `json:"sync_info"`
	ValidatorInfo ValidatorInfo `json:"validator_info"`
}

// PartSetHeader identifies a block's parts.
type PartSetHeader struct {
	Total uint32   `json:"total"`
	Hash  HexBytes `json:"hash"`
}

// BlockID is a block hash plus its part set header.
type BlockID struct {
	Hash          HexBytes      `json:"hash"`
	PartSetHeader PartSetHeader `json:"parts"`
}

// Consensus is the header's version; app is omitted when zero, as CometBFT does.
type Consensus struct {
	Block uint64 `json:"block,string"`
	App   uint64 `json:"app,omitempty,string"`
}

// Header is a block header.
type Header struct {
	Version            Consensus `json:"version"`
	ChainID            string    `json:"chain_id"`
	Height             int64     `json:"height,string"`
	Time               time.Time `json:"time"`
	LastBlockID        BlockID   `json:"last_block_id"`
	LastCommitHash     HexBytes  `json:"last_commit_hash"`
	DataHash           HexBytes  `json:"data_hash"`
	ValidatorsHash     HexBytes  `json:"validators_hash"`
	NextValidatorsHash HexBytes  `json:"next_validators_hash"`
	ConsensusHash      HexBytes  `json:"consensus_hash"`
	AppHash            HexBytes  `json:"app_hash"`
	LastResultsHash    HexBytes  `json:"last_results_hash"`
	EvidenceHash       HexBytes  `json:"evidence_hash"`
	ProposerAddress    HexBytes  `json:"proposer_address"`
}

// Data holds the raw txs (base64 in JSON). Producers should use an empty, non-nil slice: CometBFT
// renders an empty block as "txs":[].
type Data struct {
	Txs [][]byte `json:"txs"`
}

// EvidenceData is kept raw: nothing in rollgate reads evidence.
type EvidenceData struct {
	Evidence []json.RawMessage `json:"evidence"`
}

// CommitSig is one validator's vote in a commit.
type CommitSig struct {
	BlockIDFlag      int       `json:"block_id_flag"`
	ValidatorAddress HexBytes  `json:"validator_address"`
	Timestamp        time.Time `json:"timestamp"`
	Signature        []byte    `json:"signature"`
}

// Commit is the previous block's commit.
type Commit struct {
	Height     int64       `json:"height,string"`
	Round      int32       `json:"round"`
	BlockID    BlockID     `json:"block_id"`
	Signatures []CommitSig `json:"signatures"`
}

// Block is a full block.
type Block struct {
	Header     Header       `json:"header"`
	Data       Data         `json:"data"`
	Evidence   EvidenceData `json:"evidence"`
	LastCommit *Commit      `json:"last_commit"`
}

// ResultBlock is /block. Raw is the result object exactly as received (not serialised).
type ResultBlock struct {
	BlockID BlockID         `json:"block_id"`
	Block   *Block          `json:"block"`
	Raw     json.RawMessage `json:"-"`
}

// EventAttribute is an ABCI event attribute (plain strings since CometBFT 0.37).
type EventAttribute struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Index bool   `json:"index"`
}

// Event is an ABCI event.
type Event struct {
	Type       string           `json:"type"`
	Attributes []EventAttribute `json:"attributes"`
}

// ExecTxResult is one tx's execution result. Raw is the object exactly as received.
type ExecTxResult struct {
	Code      uint32          `json:"code"`
	Data      []byte          `json:"data"`
	Log       string          `json:"log"`
	Info      string          `json:"info"`
	GasWanted int64           `json:"gas_wanted,string"`
	GasUsed   int64           `json:"gas_used,string"`
	Events    []Event         `json:"events"`
	Codespace string          `json:"codespace"`
	Raw       json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the verbatim bytes alongside the typed fields.
func (r *ExecTxResult) UnmarshalJSON(b []byte) error {
	type plain ExecTxResult
	var p plain
	if err := jsonx.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = ExecTxResult(p)
	r.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// ResultBlockResults is /block_results. ValidatorUpdates and ConsensusParamUpdates stay raw.
type ResultBlockResults struct {
	Height                int64           `json:"height,string"`
	TxsResults            []*ExecTxResult `json:"txs_results"`
	FinalizeBlockEvents   []Event         `json:"finalize_block_events"`
	ValidatorUpdates      json.RawMessage `json:"validator_updates"`
	ConsensusParamUpdates json.RawMessage `json:"consensus_param_updates"`
	AppHash               []byte          `json:"app_hash"`
	Raw                   json.RawMessage `json:"-"`
}

// decodeValid decodes a /block_results result that httpx has validated. A tx's result is
// decoded once where a plain json.Unmarshal scans it four times (the whole answer's check and
// skip, then ExecTxResult.UnmarshalJSON's own check and decode): the elements of txs_results
// are cut out with jsonx and decoded one by one, the other members together. Anything
// jsonx declines, or any error, goes through json.Unmarshal, whose result (and error) it is.
func (r *ResultBlockResults) decodeValid(b []byte) error {
	var txs []byte
	n, other := 0, false
	rest := make([]byte, 0, 256)
	rest = append(rest, '{')
	ok := jsonx.Members(b, func(k, v []byte) {
		switch {
		case string(k) == "txs_results":
			txs, n = v, n+1
			return
		case bytes.EqualFold(k, []byte("txs_results")):
			other = true
		}
		rest = jsonx.AppendMember(rest, k, v)
	})
	if ok && !other && n == 1 && r.decodeParts(append(rest, '}'), txs) == nil {
		return nil
	}
	*r = ResultBlockResults{}
	return jsonx.Unmarshal(b, r)
}

func (r *ResultBlockResults) decodeParts(rest, txs []byte) error {
	type plain ResultBlockResults
	if err := jsonx.Unmarshal(rest, (*plain)(r)); err != nil {
		return err
	}
	if string(txs) == "null" {
		return nil
	}
	var err error
	r.TxsResults = []*ExecTxResult{}
	if !jsonx.Elements(txs, func(v []byte) {
		if err != nil {
			return
		}
		if string(v) == "null" {
			r.TxsResults = append(r.TxsResults, nil)
			return
		}
		type plainTx ExecTxResult
		x := new(ExecTxResult)
		if err = jsonx.Unmarshal(v, (*plainTx)(x)); err == nil {
			x.Raw = v
			r.TxsResults = append(r.TxsResults, x)
		}
	}) {
		return errors.New("txs_results is not an array")
	}
	return err
}

// BlockMeta is one entry of /blockchain.
type BlockMeta struct {
	BlockID   BlockID `json:"block_id"`
	BlockSize int     `json:"block_size,string"`
	Header    Header  `json:"header"`
	NumTxs    int     `json:"num_txs,string"`
}

// ResultBlockchainInfo is /blockchain (headers, newest first).
type ResultBlockchainInfo struct {
	LastHeight int64        `json:"last_height,string"`
	BlockMetas []*BlockMeta `json:"block_metas"`
}

// ResultTx is /tx and an element of /tx_search.
type ResultTx struct {
	Hash     HexBytes        `json:"hash"`
	Height   int64           `json:"height,string"`
	Index    uint32          `json:"index"`
	TxResult ExecTxResult    `json:"tx_result"`
	Tx       []byte          `json:"tx"`
	Proof    json.RawMessage `json:"proof,omitempty"`
}

// ResultTxSearch is /tx_search.
type ResultTxSearch struct {
	Txs        []*ResultTx `json:"txs"`
	TotalCount int         `json:"total_count,string"`
}

// ResultBroadcastTx is /broadcast_tx_sync (CheckTx outcome).
type ResultBroadcastTx struct {
	Code      uint32   `json:"code"`
	Data      []byte   `json:"data"`
	Log       string   `json:"log"`
	Codespace string   `json:"codespace"`
	Hash      HexBytes `json:"hash"`
}

// ResponseQuery is the ABCI query answer.
type ResponseQuery struct {
	Code      uint32          `json:"code"`
	Log       string          `json:"log"`
	Info      string          `json:"info"`
	Index     int64           `json:"index,string"`
	Key       []byte          `json:"key"`
	Value     []byte          `json:"value"`
	ProofOps  json.RawMessage `json:"proof_ops"`
	Height    int64           `json:"height,string"`
	Codespace string          `json:"codespace"`
}

// ResultABCIQuery is /abci_query.
type ResultABCIQuery struct {
	Response ResponseQuery `json:"response"`
}

// ResponseInfo is the ABCI info answer.
type ResponseInfo struct {
	Data             string `json:"data"`
	Version          string `json:"version"`
	AppVersion       uint64 `json:"app_version,omitempty,string"`
	LastBlockHeight  int64  `json:"last_block_height,string"`
	LastBlockAppHash []byte `json:"last_block_app_hash"`
}

// ResultABCIInfo is /abci_info.
type ResultABCIInfo struct {
	Response ResponseInfo `json:"response"`
}

// ResultGenesisChunk is one chunk of /genesis_chunked: the genesis document's JSON cut into
// pieces (16 MB each on a CometBFT node), each base64 in Data. Chunk and Total are strings on
// the wire, as CometBFT encodes its ints; Data decodes to []byte here.
type ResultGenesisChunk struct {
	Chunk int    `json:"chunk,string"`
	Total int    `json:"total,string"`
	Data  []byte `json:"data"`
}

// ResultGenesis is /genesis; the document stays raw.
type ResultGenesis struct {
	Genesis json.RawMessage `json:"genesis"`
}

// Validator is an entry of /validators.
type Validator struct {
	Address          HexBytes `json:"address"`
	PubKey           PubKey   `json:"pub_key"`
	VotingPower      int64    `json:"voting_power,string"`
	ProposerPriority int64    `json:"proposer_priority,string"`
}

// ResultValidators is /validators.
type ResultValidators struct {
	BlockHeight int64        `json:"block_height,string"`
	Validators  []*Validator `json:"validators"`
	Count       int          `json:"count,string"`
	Total       int          `json:"total,string"`
}

// FutureHeightError is CometBFT's answer (with HTTP 500) for a height above the chain head.
func FutureHeightError(requested, current int64) *RPCError {
	return &RPCError{Code: -32603, Message: "Internal error",
		Data: fmt.Sprintf("height %d must be less than or equal to the current blockchain height %d", requested, current)}
}

// TxNotFoundError is CometBFT's answer (with HTTP 500) for an unknown tx hash.
func TxNotFoundError(hash []byte) *RPCError {
	return &RPCError{Code: -32603, Message: "Internal error", Data: fmt.Sprintf("tx (%X) not found", hash)}
}
