// Package swaggerui serves Swagger UI for one of rollgate's OpenAPI documents, from the
// swagger-ui distribution embedded in the binary (github.com/swaggo/files/v2): the page works
// on a machine without network access and loads no code from elsewhere.
package swaggerui

import (
	"encoding/json"
	"net/http"
	"strings"

	swaggerfiles "github.com/swaggo/files/v2"
)

// Handler serves the UI under mount (a path ending in "/", e.g. "/swagger/"), showing the
// document at specURL. Requests for mount without its slash are redirected to it.
func Handler(mount, specURL string) http.Handler {
	url, _ := json.Marshal(specURL)
	// The distribution's initializer points at a demo document; ours points at specURL.
	initializer := []byte(`window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ` + string(url) + `,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
`)
	files := http.StripPrefix(strings.TrimSuffix(mount, "/"), http.FileServer(http.FS(swaggerfiles.FS)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch rest, ok := strings.CutPrefix(r.URL.Path, mount); {
		case !ok:
			http.Redirect(w, r, mount, http.StatusMovedPermanently)
		case rest == "swagger-initializer.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			_, _ = w.Write(initializer)
		default:
			files.ServeHTTP(w, r)
		}
	})
}
