package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAppendStringAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", "a\"b", `back\slash`, "<tag> & co", "tab\tnew\nline", "\x00\x1f\x7f",
		"ünïcödé", "line\u2028sep\u2029", "bad \xff utf-8", "emoji 😀",
	} {
		for _, esc := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(esc)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			got := AppendString([]byte("x"), s, esc)
			if w := "x" + string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); string(got) != w {
				t.Errorf("AppendString(%q, escapeHTML %v) = %s, want %s", s, esc, got, w)
			}
		}
	}
}
