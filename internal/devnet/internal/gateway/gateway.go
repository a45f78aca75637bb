// Package gateway writes REST answers the way a Cosmos SDK node's gRPC gateway does, byte for
// byte: compact JSON without HTML escaping (the captured nodes print `<`, `>` and `&` as they
// are), and errors as `{"code":N, "message":"…", "details":[]}` with the gateway's spacing.
// Every devnet module's REST routes answer through it, so they cannot drift apart.
package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Marshal encodes v as compact JSON without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Timestamp prints a google.protobuf.Timestamp as the gateway's jsonpb does: UTC, with 0,
// 3, 6 or 9 fractional digits ("…T09:00:00.500Z", never ".5Z").
func Timestamp(t time.Time) string {
	s := t.UTC().Format("2006-01-02T15:04:05.000000000")
	for range 3 {
		if !strings.HasSuffix(s, "000") {
			break
		}
		s = strings.TrimSuffix(s, "000")
	}
	return strings.TrimSuffix(s, ".") + "Z"
}

// WriteJSON writes v with status 200.
func WriteJSON(w http.ResponseWriter, v any) {
	b, err := Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, 13, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// WriteError writes the gateway's error body with an HTTP status and a gRPC code.
func WriteError(w http.ResponseWriter, status, code int, msg string) {
	m, err := Marshal(msg)
	if err != nil {
		m = []byte(`""`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"code":` + strconv.Itoa(code) + `, "message":` + string(m) + `, "details":[]}`))
}

// WriteStateError answers a query whose state could not be opened at the requested height as
// baseapp words it ("codespace sdk code 26: invalid height…", HTTP 500 with gRPC code 2).
func WriteStateError(w http.ResponseWriter, err error) {
	var ce *sim.CodedError
	msg := err.Error()
	if errors.As(err, &ce) {
		msg = fmt.Sprintf("codespace %s code %d: %s", ce.Codespace, ce.Code, ce.Log)
	}
	WriteError(w, http.StatusInternalServerError, 2, msg)
}
