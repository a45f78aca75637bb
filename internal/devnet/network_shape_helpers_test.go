package devnet

import (
	"testing"

	"github.com/rollgate/rollgate/internal/testutil/jsonshape"
)

// rollupShapes are the structural comparison rules for the Move and Wasm rollups: Any
// messages compared per type, any bech32 prefix, lowercase hex told apart, and bytes that
// may read as hex or coins where the real chain had base64.
var rollupShapes = jsonshape.Options{TypedAny: true, LowerHex: true, BytesMayBeBase64: true}

func shapeOf(t *testing.T, docs [][]byte) *jsonshape.Shape {
	t.Helper()
	return jsonshape.Of(t, rollupShapes, docs)
}
