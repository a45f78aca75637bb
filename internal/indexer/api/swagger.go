package api

import (
	_ "embed"
	"net/http"

	"github.com/rollgate/rollgate/internal/swaggerui"
)

// openapiDoc is the hand-maintained OpenAPI description of the routes marked inSpec;
// TestSwaggerCoversRoutes keeps the two in step.
//
//go:embed openapi.json
var openapiDoc []byte

func (s *server) swaggerDoc(*http.Request) (any, error) { return rawJSON(openapiDoc), nil }

// swaggerUI is Swagger UI (embedded, no CDN) over /swagger/doc.json.
var swaggerUI = swaggerui.Handler("/swagger/", "/swagger/doc.json")
