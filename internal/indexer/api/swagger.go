package api

import _ "embed"

// openapiDoc is the hand-maintained OpenAPI description of the routes marked InSpec, served
// with Swagger UI by httpapi; TestSwaggerCoversRoutes keeps the two in step.
//
//go:embed openapi.json
var openapiDoc []byte
