// Package ethrpc is the Ethereum JSON-RPC wire the devnet's two EVM servers share, the
// Ethereum-style L1's (package ethereum) and the minievm rollups' (package evm): one request or
// a batch per POST, and eth_getLogs' address and topic filter. Each server keeps its own
// methods, answers and error shapes.
package ethrpc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Serve reads r's body (at most limit bytes) as one request or, when it starts with '[', a
// batch of them, answers each with answer and writes the JSON (a batch's answers in its order);
// a body that does not parse is answered with parseError. The caller checks the HTTP method.
func Serve[Q, A any](w http.ResponseWriter, r *http.Request, limit int64, answer func(Q) A, parseError A) {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit))
	if err != nil {
		return
	}
	body = bytes.TrimSpace(body)
	var out any
	if len(body) > 0 && body[0] == '[' {
		var reqs []Q
		if err := json.Unmarshal(body, &reqs); err != nil {
			out = parseError
		} else {
			res := make([]A, 0, len(reqs))
			for _, q := range reqs {
				res = append(res, answer(q))
			}
			out = res
		}
	} else {
		var q Q
		if err := json.Unmarshal(body, &q); err != nil {
			out = parseError
		} else {
			out = answer(q)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(b, '\n'))
}

// ParseFilter reads eth_getLogs' "address" (absent, null, one address or a list) and "topics"
// (per position null, one hash or a list of alternatives). bad names the part that does not
// parse ("address filter" or "topic filter"), empty when both do.
func ParseFilter(address json.RawMessage, topics []json.RawMessage) (addrs []common.Address, alts [][]common.Hash, bad string) {
	if len(address) > 0 && string(address) != "null" {
		var one common.Address
		if json.Unmarshal(address, &one) == nil {
			addrs = []common.Address{one}
		} else if json.Unmarshal(address, &addrs) != nil {
			return nil, nil, "address filter"
		}
	}
	alts = make([][]common.Hash, len(topics))
	for i, raw := range topics {
		if string(raw) == "null" {
			continue
		}
		var one common.Hash
		if json.Unmarshal(raw, &one) == nil {
			alts[i] = []common.Hash{one}
		} else if json.Unmarshal(raw, &alts[i]) != nil {
			return nil, nil, "topic filter"
		}
	}
	return addrs, alts, ""
}

// MatchLog is eth_getLogs' filter: any of the addresses, and per topic position any of the
// alternatives (an empty position matches anything).
func MatchLog(l *types.Log, addrs []common.Address, topics [][]common.Hash) bool {
	if len(addrs) > 0 && !slices.Contains(addrs, l.Address) {
		return false
	}
	for i, alts := range topics {
		if len(alts) == 0 {
			continue
		}
		if i >= len(l.Topics) || !slices.Contains(alts, l.Topics[i]) {
			return false
		}
	}
	return true
}
