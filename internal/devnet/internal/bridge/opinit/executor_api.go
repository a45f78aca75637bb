package opinit

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// withdrawalJSON is the opinit-bots executor's /withdrawal answer (field order and
// encoding of Go's standard encoder, as the bot serves it).
type withdrawalJSON struct {
	Sequence         uint64    `json:"sequence"`
	To               string    `json:"to"`
	From             string    `json:"from"`
	Amount           coinJSON  `json:"amount"`
	OutputIndex      uint64    `json:"output_index"`
	BridgeID         uint64    `json:"bridge_id"`
	WithdrawalProofs [][]byte  `json:"withdrawal_proofs"`
	Version          []byte    `json:"version"`
	StorageRoot      []byte    `json:"storage_root"`
	LastBlockHash    []byte    `json:"last_block_hash"`
	TxTime           time.Time `json:"tx_time"`
	TxHeight         int64     `json:"tx_height"`
	TxHash           string    `json:"tx_hash"`
}

type coinJSON struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// ExecutorAPI serves the executor endpoints wallets use to build withdrawal claims
// (`GET /withdrawal/{sequence}`, `GET /withdrawals/{address}`), over the rollup's
// latest state. The devnet has no output proposals: every withdrawal is presented as
// proven at once in its own output (output_index = sequence, a one-leaf tree whose
// storage root is the withdrawal hash, no sibling proofs), which ophost accepts.
func ExecutorAPI(bridgeID uint64, latest func() (sim.Query, error)) http.Handler {
	mux := http.NewServeMux()
	render := func(r WithdrawalRecord) withdrawalJSON {
		root, _ := hex.DecodeString(r.Hash)
		return withdrawalJSON{Sequence: r.Sequence, To: r.To, From: r.From, Amount: coinJSON{r.BaseDenom, r.Amount},
			OutputIndex: r.Sequence, BridgeID: bridgeID, WithdrawalProofs: [][]byte{}, Version: []byte{1},
			StorageRoot: root, LastBlockHash: make([]byte, 32), TxTime: r.Time, TxHeight: r.Height, TxHash: r.TxHash}
	}
	mux.HandleFunc("GET /withdrawal/{sequence}", func(w http.ResponseWriter, req *http.Request) {
		seq, err := strconv.ParseUint(req.PathValue("sequence"), 10, 64)
		if err != nil {
			http.Error(w, "invalid sequence", http.StatusBadRequest)
			return
		}
		q, err := latest()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		rec, ok := ReadWithdrawal(q.Store(ChildStore), seq)
		if !ok {
			http.Error(w, "failed to query withdrawal: not found", http.StatusNotFound)
			return
		}
		writePlain(w, render(rec))
	})
	mux.HandleFunc("GET /withdrawals/{address}", func(w http.ResponseWriter, req *http.Request) {
		q, err := latest()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		addr := req.PathValue("address")
		var list []WithdrawalRecord
		for _, rec := range ListWithdrawals(q.Store(ChildStore)) {
			if rec.To == addr {
				list = append(list, rec)
			}
		}
		if req.URL.Query().Get("order") != "asc" {
			sort.Slice(list, func(i, j int) bool { return list[i].Sequence > list[j].Sequence })
		}
		offset, _ := strconv.Atoi(req.URL.Query().Get("offset"))
		limit, _ := strconv.Atoi(req.URL.Query().Get("limit"))
		if limit <= 0 {
			limit = 10
		}
		limit = min(limit, 100)
		// offset is a sequence cursor in the bot: start at that sequence (inclusive).
		start := 0
		if offset > 0 {
			for start < len(list) && list[start].Sequence != uint64(offset) {
				start++
			}
		}
		out := struct {
			Withdrawals []withdrawalJSON `json:"withdrawals"`
			Next        *uint64          `json:"next,omitempty"`
		}{Withdrawals: []withdrawalJSON{}}
		for i := start; i < len(list) && len(out.Withdrawals) < limit; i++ {
			out.Withdrawals = append(out.Withdrawals, render(list[i]))
			if len(out.Withdrawals) == limit && i+1 < len(list) {
				next := list[i+1].Sequence
				out.Next = &next
			}
		}
		writePlain(w, out)
	})
	return mux
}

func writePlain(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
