package api

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// boolRequired matches `required: true|false` on a property: the Skip spec writes it (invalid
// in OpenAPI 3.0, where required is a list on the object), and a loader rejects it.
var boolRequired = regexp.MustCompile(`(?m)^\s*required:\s*(true|false)\s*$\n?`)

// TestGoldensMatchSkipOpenAPI validates every 200 golden response against the response schema
// of the same path in Skip's published OpenAPI document (testdata/skip-go-api-openapi.yml,
// copied verbatim from the public spec), so a change that breaks a Skip client fails CI.
func TestGoldensMatchSkipOpenAPI(t *testing.T) {
	raw, err := os.ReadFile("testdata/skip-go-api-openapi.yml")
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(boolRequired.ReplaceAll(raw, nil))
	if err != nil {
		t.Fatalf("load spec: %v", err)
	}
	checks := []struct{ glob, path, method string }{
		{"route/*.json", "/v2/fungible/route", "POST"},
		{"msgs/*.json", "/v2/fungible/msgs", "POST"},
		{"endpoints/chains*.json", "/v2/info/chains", "GET"},
		{"endpoints/assets.json", "/v2/fungible/assets", "GET"},
		{"endpoints/assets_[^fb]*.json", "/v2/fungible/assets", "GET"},
		{"endpoints/assets_from_source*.json", "/v2/fungible/assets_from_source", "POST"},
		{"endpoints/bridges.json", "/v2/info/bridges", "GET"},
		{"endpoints/balances.json", "/v2/info/balances", "POST"},
		{"endpoints/msgs_direct.json", "/v2/fungible/msgs_direct", "POST"},
		{"endpoints/venues*.json", "/v2/fungible/venues", "GET"},
		{"endpoints/recommend_assets*.json", "/v2/fungible/recommend_assets", "POST"},
		{"endpoints/ibc_origin_assets*.json", "/v2/fungible/ibc_origin_assets", "POST"},
		// The GET form (Skip's client) answers the same body as the POST Skip's document has.
		{"endpoints/assets_between_chains*.json", "/v2/fungible/assets_between_chains", "POST"},
		// Statuses of LayerZero hops, as router/track's evaluation answers them.
		{"../../track/testdata/status_layer_zero_*.json", "/v2/tx/status", "GET"},
	}
	validated := 0
	for _, c := range checks {
		op := doc.Paths.Find(c.path).GetOperation(c.method)
		if op == nil {
			t.Fatalf("spec has no %s %s", c.method, c.path)
		}
		schema := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
		files, err := filepath.Glob(filepath.Join("testdata", c.glob))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no goldens (%v)", c.glob, err)
		}
		for _, f := range files {
			var g struct {
				Status int `json:"status"`
				Body   any `json:"body"`
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &g); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if g.Status != 200 {
				continue
			}
			validated++
			// The schema must have teeth: the same body with every top-level value of the
			// wrong type fails.
			if top, ok := g.Body.(map[string]any); ok {
				bad := map[string]any{}
				for k, v := range top {
					if _, isString := v.(string); isString {
						bad[k] = 7
					} else {
						bad[k] = "7"
					}
				}
				if len(schemaErrors(schema.VisitJSON(bad, openapi3.MultiErrors()))) == 0 {
					t.Errorf("%s: a mistyped copy validates against %s %s; the schema checks nothing", f, c.method, c.path)
				}
			}
			for _, e := range schemaErrors(schema.VisitJSON(g.Body, openapi3.MultiErrors())) {
				t.Errorf("%s against %s %s: %s", f, c.method, c.path, e)
			}
		}
	}
	if validated < 25 {
		t.Errorf("validated %d goldens; the globs no longer find the 200 responses", validated)
	}
}

// schemaErrors flattens a validation error. A value matching several oneOf variants is
// accepted: Skip's operation and message variants are objects whose properties are all
// optional, so a valid one matches more than one variant.
func schemaErrors(err error) []string {
	if err == nil {
		return nil
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) && se.SchemaField == "oneOf" && strings.Contains(se.Reason, "more than one") {
		return nil
	}
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		var out []string
		for _, e := range multi {
			out = append(out, schemaErrors(e)...)
		}
		return out
	}
	return []string{strings.ReplaceAll(err.Error(), "\n", " ")}
}
