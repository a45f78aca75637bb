package engine

// Commit: a block's writes go to the versioned store, and the block gets CometBFT's
// header fields, hashes and the single validator's commit signature.

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// TxResult is an ABCI ExecTxResult.
type TxResult struct {
	Code      uint32
	Data      []byte
	Log       string
	Info      string
	GasWanted int64
	GasUsed   int64
	Events    []sim.Event
	Codespace string
}

// BlockID is a CometBFT block id.
type BlockID struct {
	Hash       []byte
	PartsTotal int
	PartsHash  []byte
}

// Block is a committed block with its results. Immutable once stored.
type Block struct {
	ChainID            string
	Height             int64
	Time               time.Time
	LastBlockID        BlockID
	LastCommitHash     []byte
	DataHash           []byte
	ValidatorsHash     []byte
	NextValidatorsHash []byte
	ConsensusHash      []byte
	AppHash            []byte // state after the previous block
	LastResultsHash    []byte
	EvidenceHash       []byte
	ProposerAddress    []byte
	ID                 BlockID
	Txs                [][]byte
	TxHashes           [][32]byte
	Results            []TxResult
	FinalizeEvents     []sim.Event
	ResultAppHash      []byte // state after this block (block_results.app_hash)
	// LastCommit: the single validator's signature of the previous block.
	LastCommitHeight    int64
	LastCommitSignature []byte
	LastCommitTime      time.Time
}

func (c *Chain) commitBlock(bo *overlay, height int64, btime time.Time, txs [][]byte, results []TxResult, finalize []sim.Event) *Block {
	// app hash chains the previous one with every write of the block, in key order
	h := sha256.New()
	h.Write(c.appHash)
	keys := append([]string(nil), bo.order...)
	sortStrings(keys)
	for _, k := range keys {
		v := bo.writes[k]
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(v)
		if v == nil {
			c.st.set(k, height, nil)
		} else {
			c.st.set(k, height, v)
		}
	}
	newApp := h.Sum(nil)
	b := &Block{
		ChainID: c.cfg.ChainID, Height: height, Time: btime,
		AppHash: c.appHash, ResultAppHash: newApp, Txs: txs, Results: results, FinalizeEvents: finalize,
		ProposerAddress: c.valAddr, LastCommitHeight: height - 1,
	}
	if b.AppHash == nil {
		b.AppHash = []byte{}
	}
	vh := sha256.Sum256(append([]byte("validators/"), c.ValidatorPubKey()...))
	ch := sha256.Sum256([]byte("consensus-params/" + c.cfg.ChainID))
	b.ValidatorsHash, b.NextValidatorsHash, b.ConsensusHash = vh[:], vh[:], ch[:]
	b.EvidenceHash = merkleRoot(nil)
	for _, tx := range txs {
		th := sha256.Sum256(tx)
		b.TxHashes = append(b.TxHashes, th)
	}
	b.DataHash = merkleRoot(txs)
	if height > 1 {
		prev := c.blockAt(height - 1)
		b.LastBlockID = prev.ID
		b.LastResultsHash = resultsHash(prev.Results)
		b.LastCommitTime = prev.Time.Add(c.cfg.BlockInterval / 2)
		b.LastCommitSignature = ed25519.Sign(c.valKey, voteBytes(c.cfg.ChainID, prev.Height, prev.ID.Hash, b.LastCommitTime))
		lc := sha256.Sum256(append(append([]byte{}, c.valAddr...), b.LastCommitSignature...))
		b.LastCommitHash = lc[:]
	} else {
		b.LastResultsHash = merkleRoot(nil)
		b.LastCommitHash = merkleRoot(nil)
	}
	b.ID.Hash = headerHash(b)
	ph := sha256.Sum256(append([]byte("parts/"), b.ID.Hash...))
	b.ID.PartsTotal, b.ID.PartsHash = 1, ph[:]
	c.blocks = append(c.blocks, b)
	c.height = height
	c.publish()
	c.appHash = newApp
	for i, th := range b.TxHashes {
		c.txIndex[th] = txLoc{height: height, index: i}
	}
	return b
}

func voteBytes(chainID string, height int64, blockHash []byte, t time.Time) []byte {
	return []byte(fmt.Sprintf("vote/%s/%d/%X/%s", chainID, height, blockHash, t.UTC().Format(time.RFC3339Nano)))
}

func headerHash(b *Block) []byte {
	fields := [][]byte{
		[]byte("11"), []byte(b.ChainID), []byte(strconv.FormatInt(b.Height, 10)), []byte(b.Time.UTC().Format(time.RFC3339Nano)),
		b.LastBlockID.Hash, b.LastBlockID.PartsHash, b.LastCommitHash, b.DataHash, b.ValidatorsHash, b.NextValidatorsHash,
		b.ConsensusHash, b.AppHash, b.LastResultsHash, b.EvidenceHash, b.ProposerAddress,
	}
	return merkleRoot(fields)
}

func resultsHash(rs []TxResult) []byte {
	leaves := make([][]byte, 0, len(rs))
	for _, r := range rs {
		// ExecTxResult's deterministic fields (code, data, gas wanted, gas used); data is
		// written even when empty, as the engine always has (the hash is in every header).
		var buf []byte
		buf = appendVarint(buf, 1, uint64(r.Code))
		buf = protowire.AppendTag(buf, 2, protowire.BytesType)
		buf = protowire.AppendBytes(buf, r.Data)
		buf = appendVarint(buf, 5, uint64(r.GasWanted))
		buf = appendVarint(buf, 6, uint64(r.GasUsed))
		leaves = append(leaves, buf)
	}
	return merkleRoot(leaves)
}

// appendVarint appends a varint field, omitted when zero (proto3).
func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

// merkleRoot is CometBFT's simple Merkle tree (RFC 6962 leaf/inner prefixes).
func merkleRoot(items [][]byte) []byte {
	switch len(items) {
	case 0:
		s := sha256.Sum256(nil)
		return s[:]
	case 1:
		s := sha256.Sum256(append([]byte{0}, items[0]...))
		return s[:]
	}
	k := 1
	for k*2 < len(items) {
		k *= 2
	}
	l, r := merkleRoot(items[:k]), merkleRoot(items[k:])
	s := sha256.Sum256(append(append([]byte{1}, l...), r...))
	return s[:]
}
