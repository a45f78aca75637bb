// Package swaggerui serves Swagger UI for one of rollgate's OpenAPI documents, from the
// swagger-ui distribution embedded in the binary (github.com/swaggo/files/v2): the page works
// on a machine without network access and loads no code from elsewhere. It hands out files;
// the API layer (internal/httpapi) writes them, so a missing or malformed name gets the same
// JSON error as any other route.
package swaggerui

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"path"

	swaggerfiles "github.com/swaggo/files/v2"
)

// UI is Swagger UI over one document.
type UI struct {
	initializer []byte
}

// New returns the UI showing the document at specURL.
func New(specURL string) *UI {
	url, _ := json.Marshal(specURL)
	// The distribution's initializer points at a demo document; ours points at specURL.
	return &UI{initializer: []byte(`window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ` + string(url) + `,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`)}
}

// File returns the file at name, relative to the UI's mount ("" is the page), and its
// content type. The error wraps fs.ErrInvalid for a name that is no valid path (invalid
// UTF-8, "..", empty elements) and fs.ErrNotExist for a file the UI does not have.
func (u *UI) File(name string) ([]byte, string, error) {
	if name == "" {
		name = "index.html"
	}
	if !fs.ValidPath(name) {
		return nil, "", fmt.Errorf("swagger ui: %w", fs.ErrInvalid)
	}
	if name == "swagger-initializer.js" {
		return u.initializer, "text/javascript; charset=utf-8", nil
	}
	b, err := fs.ReadFile(swaggerfiles.FS, name)
	if err != nil {
		// A directory or anything else unreadable is, to a client, a file that is not there.
		return nil, "", fmt.Errorf("swagger ui %s: %w", name, fs.ErrNotExist)
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	return b, ct, nil
}
