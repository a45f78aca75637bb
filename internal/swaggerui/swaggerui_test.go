package swaggerui

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	ui := New("/swagger/doc.json")
	tests := []struct {
		name     string
		err      error
		ctype    string
		contains string
	}{
		{"", nil, "text/html", `<div id="swagger-ui">`},
		{"index.html", nil, "text/html", `<div id="swagger-ui">`},
		{"swagger-initializer.js", nil, "text/javascript", `url: "/swagger/doc.json"`},
		{"swagger-ui-bundle.js", nil, "javascript", "SwaggerUIBundle"},
		{"swagger-ui.css", nil, "text/css", ".swagger-ui"},
		{"nope.js", fs.ErrNotExist, "", ""},
		{"\x00", fs.ErrNotExist, "", ""},
		{"\xff", fs.ErrInvalid, "", ""},
		{"../go.mod", fs.ErrInvalid, "", ""},
		{"a//b", fs.ErrInvalid, "", ""},
		{"/index.html", fs.ErrInvalid, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, ct, err := ui.File(tc.name)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if !strings.Contains(ct, tc.ctype) || !strings.Contains(string(b), tc.contains) {
				t.Errorf("%q: type %q, body %.120q; want %q containing %q", tc.name, ct, b, tc.ctype, tc.contains)
			}
		})
	}
}
