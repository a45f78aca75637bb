package opinit

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"sort"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// outputProposal is one entry of the outputs list (QueryOutputProposalResponse).
type outputProposal struct {
	BridgeID       string     `json:"bridge_id"`
	OutputIndex    string     `json:"output_index"`
	OutputProposal outputJSON `json:"output_proposal"`
}

// pageRequest is cosmos.base.query.v1beta1.PageRequest as the gateway reads it from the
// query string.
type pageRequest struct {
	key        []byte
	offset     uint64
	limit      uint64
	countTotal bool
	reverse    bool
}

// defaultPageLimit is the SDK's query.DefaultLimit.
const defaultPageLimit = 100

func parsePage(r *http.Request) (pageRequest, string) {
	q := r.URL.Query()
	p := pageRequest{limit: defaultPageLimit}
	var err error
	if v := q.Get("pagination.key"); v != "" {
		if p.key, err = base64.StdEncoding.DecodeString(v); err != nil {
			if p.key, err = base64.URLEncoding.DecodeString(v); err != nil {
				return p, "bad Base64-encoded data: pagination.key"
			}
		}
	}
	for name, dst := range map[string]*uint64{"pagination.offset": &p.offset, "pagination.limit": &p.limit} {
		if v := q.Get(name); v != "" {
			if *dst, err = strconv.ParseUint(v, 10, 64); err != nil {
				return p, "type mismatch, parameter: " + name + ", error: " + err.Error()
			}
		}
	}
	if p.limit == 0 {
		p.limit = defaultPageLimit
	}
	for name, dst := range map[string]*bool{"pagination.count_total": &p.countTotal, "pagination.reverse": &p.reverse} {
		if v := q.Get(name); v != "" {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return p, "type mismatch, parameter: " + name + ", error: " + err.Error()
			}
		}
	}
	if len(p.key) != 0 && len(p.key) != 8 {
		return p, "invalid pagination key: an output index is 8 bytes"
	}
	if len(p.key) > 0 && p.offset > 0 {
		return p, "paginate: invalid request, either offset or key is expected, got both"
	}
	return p, ""
}

// restOutputs is GET /opinit/ophost/v1/bridges/{bridge_id}/outputs with the SDK's
// pagination (key or offset, limit, count_total, reverse). InterwovenKit reads the latest
// output with pagination.reverse=true&pagination.limit=1 to tell which withdrawals are
// claimable (packages/interwovenkit-react/src/pages/bridge/op/data.ts useLatestOutput). The
// devnet's output n is its withdrawal n (restOutput), so the list is the retained
// withdrawals in index order; a key is the big-endian output index of the next entry.
func (h *Host) restOutputs(w http.ResponseWriter, r *http.Request, _ sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	page, bad := parsePage(r)
	if bad != "" {
		gateway.WriteError(w, http.StatusBadRequest, 3, bad)
		return
	}
	lo, hi := h.outputRange(b.ID)
	out := []outputProposal{}
	var next *string
	if hi >= lo && hi > 0 {
		// The walk in the asked order: start at the key (inclusive) or offset entries in.
		var at uint64
		if len(page.key) == 8 {
			at = binary.BigEndian.Uint64(page.key)
		} else if page.reverse {
			at = sub(hi, page.offset)
		} else {
			at = lo + page.offset
		}
		for at >= lo && at <= hi && at > 0 {
			rec, found, err := h.cfg.Withdrawals.Withdrawal(b.ID, at)
			if err != nil || !found {
				break // forgotten while listing
			}
			if uint64(len(out)) == page.limit {
				k := base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint64(nil, at))
				next = &k
				break
			}
			out = append(out, outputProposal{strconv.FormatUint(b.ID, 10), strconv.FormatUint(at, 10), outputOf(rec)})
			if page.reverse {
				at--
			} else {
				at++
			}
		}
	}
	total := "0"
	if page.countTotal && hi >= lo && hi > 0 {
		total = strconv.FormatUint(hi-lo+1, 10)
	}
	gateway.WriteJSON(w, struct {
		OutputProposals []outputProposal `json:"output_proposals"`
		Pagination      pagination       `json:"pagination"`
	}{out, pagination{NextKey: next, Total: total}})
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// outputRange is the retained outputs [lo, hi] of a bridge (hi 0: none). A pruning devnet
// forgets the oldest withdrawals first, so the retained ones are one run ending at the
// latest: a binary search finds its start.
func (h *Host) outputRange(bridgeID uint64) (lo, hi uint64) {
	if h.cfg.Withdrawals == nil {
		return 1, 0
	}
	hi, err := h.cfg.Withdrawals.Latest(bridgeID)
	if err != nil || hi == 0 {
		return 1, 0
	}
	lo = uint64(sort.Search(int(hi), func(i int) bool {
		_, found, err := h.cfg.Withdrawals.Withdrawal(bridgeID, uint64(i)+1)
		return err == nil && found
	})) + 1
	return lo, hi
}
