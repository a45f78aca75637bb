package api

import (
	_ "embed"
	"net/http"
)

// openapiDoc is the hand-maintained OpenAPI description of the routes marked inSpec;
// TestSwaggerCoversRoutes keeps the two in step.
//
//go:embed openapi.json
var openapiDoc []byte

// swaggerPage is a self-contained viewer of openapiDoc (no CDN: the server may have no
// network, and the page must not pull code from elsewhere).
//
//go:embed swagger.html
var swaggerPage []byte

func (s *server) swaggerDoc(*http.Request) (any, error) { return rawJSON(openapiDoc), nil }

func (s *server) swaggerUI(*http.Request) (any, error) { return swaggerPage, nil }
