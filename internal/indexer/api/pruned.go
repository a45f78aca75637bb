package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// retainer is the store side of retention (store.DB under --retain-heights).
type retainer interface {
	Retention() int64
	CheckHeight(ctx context.Context, height int64) error
	LowestHeight(ctx context.Context) (int64, error)
}

// retention returns the store's retention side when it prunes, nil when it keeps every height.
func (s *server) retention() retainer {
	if rt, ok := s.store.(retainer); ok && rt.Retention() > 0 {
		return rt
	}
	return nil
}

// retained adapts the routes to a pruning store, decided per request so a store without
// retention answers exactly as before. A height below the lowest kept answers as a pruned
// node does, naming the floor, rather than as a height that never existed; and nothing is
// Pinned, since a pinned answer would outlive the rows it was made of (the response cache
// keeps an unpinned one only until the next block).
func (s *server) retained(routes []httpapi.Route) []httpapi.Route {
	for i := range routes {
		h := routes[i].Handler
		if h == nil {
			continue
		}
		byHeight := strings.Contains(routes[i].Pattern, "{height}")
		routes[i].Handler = func(r *http.Request) (any, error) {
			rt := s.retention()
			if rt == nil {
				return h(r)
			}
			if byHeight {
				// A malformed height is left to the route's own 400.
				if height, err := heightParam(r.PathValue("height")); err == nil {
					if err := rt.CheckHeight(r.Context(), height); err != nil {
						return nil, err
					}
				}
			}
			v, err := h(r)
			if p, ok := v.(httpapi.Pinned); ok {
				v = p.Body
			}
			return v, err
		}
	}
	return routes
}

// prunedError is the API error for a store.PrunedError: a 404 whose message and details say
// the height was pruned and which height is the lowest kept.
func prunedError(err error) (*apierr.Error, bool) {
	var p *store.PrunedError
	if !errors.As(err, &p) {
		return nil, false
	}
	return apierr.NotFoundf("%s", p.Error()).WithDetails("HEIGHT_PRUNED"), true
}

// lowestStatus fills /status's lowest_height on a pruning store (omitted otherwise, so an
// unpruned store's /status is rollytics').
func (s *server) lowestStatus(r *http.Request, st *statusJSON) error {
	rt := s.retention()
	if rt == nil {
		return nil
	}
	lo, err := rt.LowestHeight(r.Context())
	st.LowestHeight = lo
	return err
}
