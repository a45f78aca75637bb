package sim

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bareEnv is an Env with no extra; quietEnv adds the quiet bank.
type bareEnv struct{}

func (bareEnv) ChainID() string                   { return "c-1" }
func (bareEnv) Height() int64                     { return 1 }
func (bareEnv) Time() time.Time                   { return time.Time{} }
func (bareEnv) TxHash() []byte                    { return nil }
func (bareEnv) AddressPrefix() string             { return "init" }
func (bareEnv) Emit(Event)                        {}
func (bareEnv) Balance([]byte, string) *big.Int   { return new(big.Int) }
func (bareEnv) Send([]byte, []byte, []Coin) error { return nil }
func (bareEnv) Mint([]byte, []Coin) error         { return nil }
func (bareEnv) Burn([]byte, []Coin) error         { return nil }
func (bareEnv) Store(string) KV                   { return nil }
func (bareEnv) ConsumeGas(uint64)                 {}

type quietEnv struct{ bareEnv }

func (quietEnv) SendQuiet([]byte, []byte, []Coin) error { return nil }
func (quietEnv) MintQuiet([]byte, []Coin) error         { return nil }
func (quietEnv) BurnQuiet([]byte, []Coin) error         { return nil }

type needy struct {
	name  string
	needs []Extra
}

func (n needy) Name() string                                { return n.name }
func (needy) InitGenesis(Env) error                         { return nil }
func (needy) Handlers() map[string]Handler                  { return nil }
func (needy) Routes(*http.ServeMux, QueryAt)                {}
func (needy) Traffic(*rand.Rand, Query, []Account) []Intent { return nil }
func (n needy) Needs() []Extra                              { return n.needs }

// A module needing an extra the env lacks fails the wiring check, naming both; modules that
// need nothing, or what the env has, pass.
func TestCheckNeeds(t *testing.T) {
	quiet := needy{"wasm", []Extra{NeedQuietBank}}
	both := needy{"evm", []Extra{NeedQuietBank, NeedResponder}}
	if err := CheckNeeds(quietEnv{}, quiet, needy{name: "none"}); err != nil {
		t.Fatalf("satisfied needs: %v", err)
	}
	err := CheckNeeds(quietEnv{}, quiet, both)
	if err == nil || !strings.Contains(err.Error(), "module evm needs sim.Responder") {
		t.Fatalf("missing responder: %v", err)
	}
	if err := CheckNeeds(bareEnv{}, quiet); err == nil || !strings.Contains(err.Error(), "sim.QuietBank") {
		t.Fatalf("missing quiet bank: %v", err)
	}
	if err := CheckNeeds(bareEnv{}); err != nil {
		t.Fatalf("no modules: %v", err)
	}
}

// As hands out an extra the env has, and fails (never panics) for one it lacks.
func TestAs(t *testing.T) {
	if _, err := As[QuietBank](quietEnv{}); err != nil {
		t.Fatalf("present extra: %v", err)
	}
	_, err := As[Responder](quietEnv{})
	var ce *CodedError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "sim.Responder") {
		t.Fatalf("absent extra: %v", err)
	}
}
