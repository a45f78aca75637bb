package devnet

import (
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// The façade's kinds are handed to the engine by conversion, so their values must be the
// engine's.
func TestKindsAreTheEngines(t *testing.T) {
	for k, e := range map[Kind]engine.Kind{KindL1: engine.KindL1, KindEVM: engine.KindEVM, KindMove: engine.KindMove, KindWasm: engine.KindWasm, KindCosmos: engine.KindCosmos} {
		if string(k) != string(e) {
			t.Errorf("devnet kind %q, engine kind %q", k, e)
		}
	}
}
