package api

import (
	"errors"
	"net/http"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// errNoEVM is rollytics' answer on every EVM path of a chain that does not serve it (not an
// EVM chain, or internal txs turned off).
func errNoEVM(*http.Request) (any, error) {
	return nil, apierr.NotFoundf("evm routes are not available on this chain")
}

// evmRoutes are the EVM tx and internal tx routes: served when the profile hands the API an
// EVM reader, otherwise every path under them answers rollytics' 404.
func (s *server) evmRoutes() []httpapi.Route {
	evm := s.cfg.Features.EVMTxs != nil
	var out []httpapi.Route
	if evm {
		// EVM txs are written with their blocks, so their answers may be cached per indexed
		// height; internal txs follow their own height and are not.
		out = append(out,
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs", Handler: s.evmTxs, InSpec: true, Cache: true},
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs/by_account/{account}", Handler: s.evmTxsByAccount, InSpec: true, Cache: true},
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs/by_height/{height}", Handler: s.evmTxsByHeight, InSpec: true, Cache: true},
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs/{tx_hash}", Handler: s.evmTx, InSpec: true, Cache: true},
		)
	} else {
		out = append(out, httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs", Handler: errNoEVM}, httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs/", Handler: errNoEVM})
	}
	if s.servesInternalTxs() {
		out = append(out,
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs", Handler: s.internalTxs, InSpec: true},
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs/by_account/{account}", Handler: s.internalTxsByAccount, InSpec: true},
			// Internal txs are traced behind the indexed height (internal_tx_height), so only the
			// pinned answers of traced heights may be cached; lists and by-hash answers are not:
			// a hash may occur again in a later block.
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs/by_height/{height}", Handler: s.internalTxsByHeight, InSpec: true, CachePinned: true},
			httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs/{tx_hash}", Handler: s.internalTxsByHash, InSpec: true},
		)
	} else {
		out = append(out, httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs", Handler: errNoEVM}, httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-internal-txs/", Handler: errNoEVM})
	}
	return out
}

// servesInternalTxs says the internal-tx routes and status field are served.
func (s *server) servesInternalTxs() bool {
	return s.cfg.Features.EVMTxs != nil && s.cfg.Features.InternalTxs
}

// evmStatus adds /status's internal_tx_height on EVM chains with internal txs on.
func (s *server) evmStatus(r *http.Request, st *statusJSON) error {
	if !s.servesInternalTxs() {
		return nil
	}
	h, err := s.evm().InternalTxHeight(r.Context())
	st.InternalTxHeight = h
	return err
}

// evm is the EVM reader; only the EVM routes, which exist only with one, call it.
func (s *server) evm() store.EVMReader { return s.cfg.Features.EVMTxs }

func (s *server) evmTxList(r *http.Request, f store.EVMTxFilter) (any, error) {
	q := query(r.URL.RawQuery)
	p, err := pagination(q)
	if err != nil {
		return nil, err
	}
	if f.Height == 0 {
		lo, hi, empty, err := s.timeRange(r, q)
		if err != nil {
			return nil, err
		}
		if empty {
			return emptyTxPage()
		}
		f.MinHeight, f.MaxHeight = lo, hi
	}
	page, err := s.evm().EVMTxs(r.Context(), f, p)
	if err != nil {
		return nil, err
	}
	return seqPage("txs", page)
}

func (s *server) evmTxs(r *http.Request) (any, error) {
	return s.evmTxList(r, store.EVMTxFilter{})
}

func (s *server) evmTxsByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	// Only the literal "true" enables it, as in rollytics.
	return s.evmTxList(r, store.EVMTxFilter{Account: acc, SignerOnly: query(r.URL.RawQuery).Get("is_signer") == "true"})
}

func (s *server) evmTxsByHeight(r *http.Request) (any, error) {
	h, err := heightParam(r.PathValue("height"))
	if err != nil {
		return nil, err
	}
	v, err := s.evmTxList(r, store.EVMTxFilter{Height: h})
	if err != nil {
		return nil, err
	}
	return s.pinIfIndexed(r, h, v), nil
}

// pinIfIndexed marks the answer about height h as final once h is indexed.
func (s *server) pinIfIndexed(r *http.Request, h int64, v any) any {
	if _, pinned := v.(httpapi.Pinned); pinned {
		return v
	}
	if ih, err := s.store.IndexedHeight(r.Context()); err == nil && h <= ih {
		return httpapi.Pinned{Body: v}
	}
	return v
}

func (s *server) evmTx(r *http.Request) (any, error) {
	hash, err := hashParam(r.PathValue("tx_hash"))
	if err != nil {
		return nil, err
	}
	t, err := s.evm().EVMTx(r.Context(), hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("tx not found")
	}
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(t.JSON)+8)
	b = append(b, `{"tx":`...)
	b = append(b, t.JSON...)
	b = append(b, "}\n"...)
	return httpapi.Pinned{Body: httpapi.Raw(b)}, nil
}

func (s *server) internalTxList(r *http.Request, f store.InternalTxFilter) (any, error) {
	p, err := pagination(query(r.URL.RawQuery))
	if err != nil {
		return nil, err
	}
	page, err := s.evm().InternalTxs(r.Context(), f, p)
	if err != nil {
		return nil, err
	}
	return seqPage("internal_txs", page)
}

func (s *server) internalTxs(r *http.Request) (any, error) {
	return s.internalTxList(r, store.InternalTxFilter{})
}

func (s *server) internalTxsByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	return s.internalTxList(r, store.InternalTxFilter{Account: acc})
}

func (s *server) internalTxsByHeight(r *http.Request) (any, error) {
	h, err := heightParam(r.PathValue("height"))
	if err != nil {
		return nil, err
	}
	v, err := s.internalTxList(r, store.InternalTxFilter{Height: h})
	if err != nil {
		return nil, err
	}
	if _, pinned := v.(httpapi.Pinned); pinned {
		return v, nil
	}
	if ih, err := s.evm().InternalTxHeight(r.Context()); err == nil && h <= ih {
		return httpapi.Pinned{Body: v}, nil
	}
	return v, nil
}

// internalTxsByHash lists the internal txs of one EVM tx; a hash that names no EVM tx is
// rollytics' 404, a known tx without internal txs (or not traced yet) an empty list.
func (s *server) internalTxsByHash(r *http.Request) (any, error) {
	hash, err := hashParam(r.PathValue("tx_hash"))
	if err != nil {
		return nil, err
	}
	if _, err := s.evm().EVMTx(r.Context(), hash); errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("transaction not found")
	} else if err != nil {
		return nil, err
	}
	return s.internalTxList(r, store.InternalTxFilter{Hash: hash})
}
