package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// The route and message endpoints: each decodes its body, asks the route engine or the
// message builder, and returns their answer or domain error (mapped to apierr in api.go).

func (s *server) route(r *http.Request) (any, error) {
	var req route.Request
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	rt, err := g.Find(req)
	if err != nil {
		return nil, err
	}
	s.priceRoute(g.Registry(), rt)
	return rt, nil
}

func (s *server) opHook(r *http.Request) (any, error) {
	var req wire.OPHookRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	multi := true
	amount := req.AmountIn
	if amount == "" {
		// Only to learn whether the route needs a hook at all: transfers and deposits take
		// the same path whatever the amount.
		amount = "1"
	}
	rt, err := g.Find(route.Request{AmountIn: amount, SourceAssetChainID: req.SourceAssetChainID, SourceAssetDenom: req.SourceAssetDenom,
		DestAssetChainID: req.DestAssetChainID, DestAssetDenom: req.DestAssetDenom, AllowMultiTx: &multi, AllowAmountHooks: req.AllowAmountHooks})
	if err != nil {
		return nil, err
	}
	reg := g.Registry()
	src, dst := reg.Chain(req.SourceAssetChainID), reg.Chain(req.DestAssetChainID)
	if req.SourceAddress == "" || req.DestAddress == "" {
		return nil, apierr.BadRequest("source_address and dest_address are required").WithDetails(route.ReasonMissingField)
	}
	if err := msgs.ValidateAddress(src, req.SourceAddress); err != nil {
		return nil, apierr.BadRequest("source_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	if err := msgs.ValidateAddress(dst, req.DestAddress); err != nil {
		return nil, apierr.BadRequest("dest_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	if !rt.RequiredOPHook {
		return nil, apierr.BadRequest("the route from %s to %s needs no op hook", req.SourceAssetDenom, req.DestAssetDenom).WithDetails(ReasonHookNotNeeded)
	}
	if i := slices.IndexFunc(rt.Wraps, func(w route.WrapStep) bool { return w.Via == route.WrapInOPHook }); i >= 0 {
		return s.wrapHook(r, reg, rt.Wraps[i], req)
	}
	dep := slices.IndexFunc(rt.Operations, func(o route.Operation) bool { return o.Hop().Bridge == bridge.OPInit })
	l2 := reg.Chain(rt.Operations[dep].ToChainID())
	if req.AmountIn == "" {
		return nil, apierr.BadRequest("amount_in is required: the hook is a transfer on %s signed now for the exact amount the deposit will mint there", l2.ID).
			WithDetails(ReasonHookAmountRequired).
			WithInfo("send amount_in: the amount_in of the /v2/fungible/route response (asked with allow_amount_hooks) this hook is for (the same value later sent to /v2/fungible/msgs)")
	}
	sender, err := msgs.Rebech32(req.SourceAddress, l2.Bech32Prefix)
	if err != nil {
		return nil, apierr.BadRequest("source_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	chainID, hook, err := s.builder(g).OPHook(rt.Operations, dep, sender, req.DestAddress, s.cfg.Now())
	if err != nil {
		return nil, err
	}
	return wire.OPHookResponse{ChainID: chainID, Hook: hook}, nil
}

// wrapHook answers /op-hook for a deposit that ends in minievm's wrapper token: approve and
// toLocal, signed by the user on the rollup, with no amount (msgs.WrapHook). The body is
// InterwovenKit's and initia.js' six fields; amount_in, when sent, is not needed.
func (s *server) wrapHook(r *http.Request, reg *registry.Registry, w route.WrapStep, req wire.OPHookRequest) (any, error) {
	l2 := reg.Chain(w.ChainID)
	sender, err := msgs.Rebech32(req.SourceAddress, l2.Bech32Prefix)
	if err != nil {
		return nil, apierr.BadRequest("source_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	if _, err := msgs.Address20(req.DestAddress); err != nil {
		return nil, apierr.BadRequest("dest_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	token, err := s.cfg.Contracts.ContractByDenom(r.Context(), l2, w.RemoteDenom)
	if err != nil {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: fmt.Sprintf("cannot build the op hook: the ERC-20 of %s on %s is unknown", w.RemoteDenom, l2.ID),
			Details: []string{ReasonHookChainUnavailable}, Cause: err}
	}
	hook, err := msgs.WrapHook{Sender: sender, Receiver: req.DestAddress, Wrapper: w.Contract, BridgedDenom: w.RemoteDenom, BridgedToken: token}.Msgs()
	if err != nil {
		return nil, apierr.BadRequest("op hook: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	return wire.OPHookResponse{ChainID: l2.ID, Hook: hook}, nil
}

func (s *server) msgs(r *http.Request) (any, error) {
	var req msgs.Request
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	out, err := s.builder(g).BuildContext(r.Context(), req)
	if se := (*msgs.SourceError)(nil); errors.As(err, &se) {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: se.Error(), Details: []string{ReasonLZQuoteUnavailable}, Cause: err}
	}
	if err != nil {
		return nil, err
	}
	s.priceFees(g.Registry(), out.EstimatedFees)
	return out, nil
}

// ReasonLZQuoteUnavailable: the source chain did not quote a LayerZero send's fee.
const ReasonLZQuoteUnavailable = "LAYER_ZERO_QUOTE_UNAVAILABLE"

func (s *server) msgsDirect(r *http.Request) (any, error) {
	var req wire.MsgsDirectRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	rt, err := g.Find(req.Request)
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		a, ok := req.ChainIDsToAddresses[c]
		if !ok || a == "" {
			return nil, apierr.BadRequest("chain_ids_to_addresses has no address for %s", c).WithDetails(ReasonMissingAddress)
		}
		addrs[i] = a
	}
	out, err := s.builder(g).Build(msgs.Request{SourceAssetDenom: rt.SourceAssetDenom, SourceAssetChainID: rt.SourceAssetChainID,
		DestAssetDenom: rt.DestAssetDenom, DestAssetChainID: rt.DestAssetChainID, AmountIn: rt.AmountIn, AmountOut: rt.AmountOut,
		AddressList: addrs, Operations: rt.Operations, SlippageTolerancePercent: req.SlippageTolerancePercent,
		TimeoutSeconds: req.TimeoutSeconds, SignedOPHook: req.SignedOPHook})
	if err != nil {
		return nil, err
	}
	s.priceRoute(g.Registry(), rt)
	s.priceFees(g.Registry(), out.EstimatedFees)
	return wire.MsgsDirectResponse{Msgs: out.Msgs, Txs: out.Txs, Route: *rt, MinAmountOut: out.MinAmountOut, EstimatedFees: out.EstimatedFees}, nil
}
