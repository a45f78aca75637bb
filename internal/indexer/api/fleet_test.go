package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// TestFleetSwaggerCoversRoutes: the fleet's OpenAPI document describes exactly its routes
// marked InSpec, and is served.
func TestFleetSwaggerCoversRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(fleetDoc, &doc); err != nil {
		t.Fatalf("openapi_fleet.json: %v", err)
	}
	var spec, served []string
	for p := range doc.Paths {
		spec = append(spec, p)
	}
	for _, rt := range (&fleetServer{}).routes() {
		if rt.InSpec {
			served = append(served, rt.Path())
		}
	}
	slices.Sort(spec)
	slices.Sort(served)
	if !slices.Equal(spec, served) {
		t.Errorf("openapi_fleet.json paths and served routes differ:\nspec:   %v\nserved: %v", spec, served)
	}
	h := NewFleet(FleetConfig{Chains: func() []FleetChain { return nil }}, nil, nil)
	if rec := do(h, "/swagger/doc.json"); rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), fleetDoc) {
		t.Errorf("/swagger/doc.json: %d", rec.Code)
	}
	for path, code := range map[string]int{"/chains": 200, "/nope/status": 404, "/all/indexer/tx/v1/txs/by_account/zzz": 400,
		"/all/indexer/tx/v1/txs/by_account/init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz?pagination.reverse=false": 400,
		"/all/indexer/tx/v1/txs/by_account/init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz?pagination.key=e30K":      400} {
		if rec := do(h, path); rec.Code != code {
			t.Errorf("%s: %d %s, want %d", path, rec.Code, rec.Body, code)
		}
	}
}

// TestFleetChainStartingIsNoError: a chain the fleet knows but does not serve yet answers 503
// CHAIN_STARTING, a state a client retries through, not a failure: nothing at ERROR in the log.
func TestFleetChainStartingIsNoError(t *testing.T) {
	var logs bytes.Buffer
	h := NewFleet(FleetConfig{Chains: func() []FleetChain { return []FleetChain{{ID: "c-1", VMType: "evm", State: "starting"}} }},
		slog.New(slog.NewTextHandler(&logs, nil)), nil)
	for _, path := range []string{"/c-1/readyz", "/c-1/status", "/c-1/indexer/tx/v1/txs"} {
		rec := do(h, path)
		if rec.Code != 503 || !strings.Contains(rec.Body.String(), "CHAIN_STARTING") {
			t.Errorf("%s: %d %s, want 503 CHAIN_STARTING", path, rec.Code, rec.Body)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a starting chain logged at ERROR:\n%s", logs.String())
	}
}
