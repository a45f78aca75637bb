package api

import (
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/store"
)

// Time ranges: start_time and end_time on the account tx lists, the EVM tx lists and the
// transfer lists, answered from the block time index (store.Reader.HeightRange) as a height
// range, so a ranged list is as cheap as the same list over those heights.

// timeRange reads start_time and end_time (RFC 3339, inclusive) as the heights whose blocks
// lie in the range; empty is true when none does. Neither given: no bounds.
func (s *server) timeRange(r *http.Request, q url.Values) (lo, hi int64, empty bool, err error) {
	var start, end time.Time
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"start_time", &start}, {"end_time", &end}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		// A space is read as '+', the usual casualty of an unescaped offset ("+02:00").
		t, perr := time.Parse(time.RFC3339Nano, strings.ReplaceAll(v, " ", "+"))
		if perr != nil {
			return 0, 0, false, apierr.BadRequest("[INVALID_VALUE] invalid value for %s: %s (must be an RFC 3339 time, e.g. 2026-12-01T00:00:00Z)", p.name, clip(v))
		}
		*p.t = t
	}
	if start.IsZero() && end.IsZero() {
		return 0, 0, false, nil
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return 0, 0, false, apierr.BadRequest("[INVALID_VALUE] end_time %s is before start_time %s", clip(q.Get("end_time")), clip(q.Get("start_time")))
	}
	return s.store.HeightRange(r.Context(), start, end)
}

// exportHeights is an export's height bounds from its time range: a range no block lies in is
// bounds no height meets.
func (s *server) exportHeights(r *http.Request, q url.Values) (lo, hi int64, err error) {
	lo, hi, empty, err := s.timeRange(r, q)
	if empty {
		return math.MaxInt64, math.MaxInt64, err
	}
	return lo, hi, err
}

// emptyTxPage is a tx-shaped list with no row (a time range no block lies in).
func emptyTxPage() (any, error) { return seqPage("txs", store.TxPage{Txs: []store.TxRecord{}}) }
