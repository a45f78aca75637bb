package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rollgate/rollgate/internal/jsonx"
)

// openapiDoc is the hand-maintained OpenAPI description of the routes marked InSpec, served
// with Swagger UI by httpapi; TestSwaggerCoversRoutes keeps the two in step.
//
//go:embed openapi.json
var openapiDoc []byte

// openAPI is the document served at /swagger/doc.json: openapi.json less the EVM and transfer
// paths this chain does not serve (as rollytics drops "/evm-" paths on other chains), so the document
// lists exactly the routes served.
func (s *server) openAPI() []byte {
	evm, internal := s.cfg.Features.EVMTxs != nil, s.servesInternalTxs()
	es := s.cfg.Features.Etherscan != nil
	transfers := s.cfg.Features.Transfers != nil
	drop := func(p string) bool {
		return (!evm && strings.HasPrefix(p, "/indexer/tx/v1/evm-")) || (!es && p == "/api") ||
			(!internal && strings.HasPrefix(p, "/indexer/tx/v1/evm-internal-txs")) ||
			(!transfers && strings.HasPrefix(p, "/indexer/transfer/"))
	}
	doc, err := dropPaths(openapiDoc, drop)
	if err != nil {
		panic(fmt.Sprintf("openapi.json: %v", err)) // embedded and checked by the tests
	}
	return doc
}

// dropPaths removes the paths matching drop from an OpenAPI document, keeping the order of
// everything else; with nothing to drop the document is returned as is. The members are
// copied as jsonx.Members gives them and the result written as encoding/json would marshal
// and indent it (HTML characters escaped).
func dropPaths(doc []byte, drop func(string) bool) ([]byte, error) {
	top, dropped, nested := []byte{'{'}, false, true
	ok := jsonx.Members(doc, func(k, v []byte) {
		if string(k) == "paths" {
			kept := []byte{'{'}
			nested = nested && jsonx.Members(v, func(p, pv []byte) {
				if drop(string(p)) {
					dropped = true
				} else {
					kept = jsonx.AppendMember(kept, p, pv)
				}
			})
			v = append(kept, '}')
		}
		top = jsonx.AppendMember(top, k, v)
	})
	if !ok || !nested {
		return nil, errors.New("not an object of plain keys")
	}
	if !dropped {
		return doc, nil
	}
	var esc, out bytes.Buffer
	json.HTMLEscape(&esc, append(top, '}'))
	if err := json.Indent(&out, esc.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
