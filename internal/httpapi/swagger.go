package httpapi

import (
	"errors"
	"io/fs"
	"net/http"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/swaggerui"
	"github.com/rollgate/rollgate/internal/textclip"
)

// swaggerRoutes serve the OpenAPI document and Swagger UI through the same wrap as every
// route, so a missing file or an invalid name (/swagger/%ff) is a JSON error like any other.
func swaggerRoutes(doc []byte) []Route {
	ui := swaggerui.New("/swagger/doc.json")
	return []Route{
		{Pattern: "GET /swagger/doc.json", Handler: func(*http.Request) (any, error) { return Raw(doc), nil }},
		{Pattern: "GET /swagger/{file...}", Handler: func(r *http.Request) (any, error) {
			name := r.PathValue("file")
			b, ct, err := ui.File(name)
			switch {
			case errors.Is(err, fs.ErrInvalid):
				return nil, apierr.BadRequest("invalid file name %q under /swagger/", textclip.Clip(name))
			case err != nil:
				return nil, apierr.NotFoundf("no file %q under /swagger/", textclip.Clip(name))
			}
			return Blob{ContentType: ct, Body: b}, nil
		}},
	}
}
