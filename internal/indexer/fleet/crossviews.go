package fleet

import (
	"net/http"
	"strings"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
)

// ChainWithViews is Chain with, beside the chain's API, what the fleet serves on paths the
// single-chain API does not have: its chain list (/chains), its cross-rollup views (/all/…),
// the portfolio (/minity/…) and every rollup's API under /{chain_id}/, so each rollup's URL
// under `rollgate up` is also the whole fleet, as its /chains (whose base is "/{chain_id}")
// says.
func (f *Fleet) ChainWithViews(id string) http.Handler {
	return crossViews{chain: f.Chain(id), f: f}
}

type crossViews struct {
	chain http.Handler
	f     *Fleet
}

func (v crossViews) fleets(path string) bool {
	return path == "/chains" || strings.HasPrefix(path, "/all/") || strings.HasPrefix(path, api.MinityPrefix+"/") || v.f.Owns(path)
}

func (v crossViews) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if v.fleets(r.URL.Path) {
		v.f.ServeHTTP(w, r)
		return
	}
	v.chain.ServeHTTP(w, r)
}

// Rejected implements httpapi.Rejecter: counted by the chain's API.
func (v crossViews) Rejected(status int) {
	if r, ok := v.chain.(httpapi.Rejecter); ok {
		r.Rejected(status)
	}
}

// Dispatch implements httpapi.Dispatcher: the chain's API for its own paths, the fleet's
// chain under /{chain_id}/ (its cached answers and streams written by the transport too).
func (v crossViews) Dispatch(host, path string) (http.Handler, string, bool) {
	if v.f.Owns(path) {
		return v.f.Dispatch(host, path)
	}
	d, ok := v.chain.(httpapi.Dispatcher)
	if !ok || v.fleets(path) {
		return nil, "", false
	}
	return d.Dispatch(host, path)
}
