package server

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// MetadataSource is implemented by modules that give denoms x/bank metadata (tokenfactory
// sets a default entry for every denom it creates). The server lists and answers those
// denoms in the bank metadata routes; a chain without such a module has no metadata at all.
type MetadataSource interface {
	// MetadataDenoms lists, at the queried state, the denoms whose bank metadata is the
	// default one (a single exponent-0 unit; base, display, name and symbol all the denom).
	MetadataDenoms(q sim.Query) []string
}

func (s *rest) metadataDenoms(q sim.Query) []string {
	var out []string
	for _, m := range s.meta {
		out = append(out, m.MetadataDenoms(q)...)
	}
	// the bank keeps metadata in a store keyed by denom, so it lists them sorted
	sort.Strings(out)
	return out
}

// defaultMetadata is the x/bank Metadata JSON the chain keeps for a factory denom.
func defaultMetadata(denom string) ordered {
	return ordered{
		{"description", ""},
		{"denom_units", []any{ordered{{"denom", denom}, {"exponent", 0}, {"aliases", []any{}}}}},
		{"base", denom}, {"display", denom}, {"name", denom}, {"symbol", denom}, {"uri", ""}, {"uri_hash", ""},
	}
}

// supplyOf is bank SupplyOf: a denom nobody holds still answers, with amount 0.
func (s *rest) supplyOf(w http.ResponseWriter, r *http.Request) {
	d := r.URL.Query().Get("denom")
	if d == "" {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid denom")
		return
	}
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	amt := "0"
	if v, found := q.Store("bank").Get("s/" + d); found {
		amt = string(v)
	}
	writeJSON(w, http.StatusOK, ordered{{"amount", ordered{{"denom", d}, {"amount", amt}}}})
}

// denomMetadataByQuery is bank DenomMetadataByQueryString: NotFound for a denom without
// metadata.
func (s *rest) denomMetadataByQuery(w http.ResponseWriter, r *http.Request) {
	d := r.URL.Query().Get("denom")
	if d == "" {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid denom")
		return
	}
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	for _, md := range s.metadataDenoms(q) {
		if md == d {
			writeJSON(w, http.StatusOK, ordered{{"metadata", defaultMetadata(d)}})
			return
		}
	}
	gateway.WriteError(w, http.StatusNotFound, 5, fmt.Sprintf("client metadata for denom %s", d))
}

func (s *rest) denomsMetadata(w http.ResponseWriter, r *http.Request) {
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	all := s.metadataDenoms(q)
	offset, limit := pageArgs(r)
	end := min(offset+limit, len(all))
	out := []any{}
	for i := offset; i < end; i++ {
		out = append(out, defaultMetadata(all[i]))
	}
	var next any
	if end < len(all) {
		next = b64([]byte(all[end-1]))
	}
	writeJSON(w, http.StatusOK, ordered{{"metadatas", out}, {"pagination", ordered{{"next_key", next}, {"total", strconv.Itoa(len(all))}}}})
}
