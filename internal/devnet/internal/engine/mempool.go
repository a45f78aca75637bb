package engine

// Mempool and CheckTx: broadcast_tx_sync checks a tx against the latest state (ante with
// the mempool's pending sequences) and queues it for the next block.

import (
	"crypto/sha256"
	"encoding/hex"
)

// CheckResult is what broadcast_tx_sync answers.
type CheckResult struct {
	Code      uint32
	Data      []byte
	Log       string
	Codespace string
	Hash      [32]byte
}

// BroadcastTxSync runs CheckTx and queues the tx for the next block.
func (c *Chain) BroadcastTxSync(raw []byte) CheckResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := CheckResult{Hash: sha256.Sum256(raw)}
	tx, err := DecodeTx(raw)
	if err != nil {
		res.Code, res.Codespace, res.Log = codeTxDecode, codespaceSDK, err.Error()+": tx parse error"
		return res
	}
	if _, dup := c.txIndex[tx.Hash]; dup {
		res.Code, res.Codespace, res.Log = codeTxInMempoolCache, codespaceSDK, "tx already exists in cache"
		return res
	}
	v := heightView{c.st, c.height}
	checked, cerr := c.ante(v, tx, true)
	if cerr == nil {
		cerr = c.checkTxFee(v, tx, c.feePayer(tx, checked))
	}
	if cerr != nil {
		res.Code, res.Codespace, res.Log = cerr.Code, cerr.Codespace, cerr.Log
		return res
	}
	for i, si := range tx.Signers {
		c.pending[hex.EncodeToString(checked.signers[i])] = si.Sequence + 1
	}
	c.mempool = append(c.mempool, raw)
	return res
}
