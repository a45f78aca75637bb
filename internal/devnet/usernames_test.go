package devnet_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// TestUsernamesViews: the L1 publishes the username module at the address InterwovenKit's
// TESTNET config names and answers the two views the kit calls (initia-labs/interwovenkit
// packages/interwovenkit-react/src/data/username.ts: get_name_from_address with the address
// as 32 BCS bytes, get_address_from_name with a BCS string) over the legacy view_functions
// route, from the chain's state: null (an empty Move option) for an address without a name
// and a name nobody holds, 200 both; after register_domain and set_name the name and the
// address. A rollup has no such module (LINKER_ERROR, as before).
func TestUsernamesViews(t *testing.T) {
	net := startNet(t, 41, 1, devnet.ChainSpec{ChainID: "l1-names-1", Kind: devnet.KindL1}, devnet.ChainSpec{ChainID: "move-names-1", Kind: devnet.KindMove})
	l1, _ := net.Chain("l1-names-1")
	eng := l1.Engine()
	k := eng.Key(3)
	owner := move.AccAddr(k.Address())
	mod := move.UsernamesTestnet.String()
	base := "/initia/move/v1/accounts/" + mod + "/modules/usernames/view_functions/"
	bcsStr := func(s string) string { return base64.StdEncoding.EncodeToString(append([]byte{byte(len(s))}, s...)) }
	view := func(c *devnet.Chain, fn, arg string) (int, string) {
		t.Helper()
		status, body := post(t, c.REST()+base+fn, map[string]any{"type_args": []string{}, "args": []string{arg}})
		var r struct{ Data string }
		if status == 200 {
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("%s: %s", fn, body)
			}
			return status, r.Data
		}
		return status, string(body)
	}
	nameOf := func() (int, string) {
		return view(l1, "get_name_from_address", base64.StdEncoding.EncodeToString(owner[:]))
	}
	if st, d := nameOf(); st != 200 || d != "null" {
		t.Fatalf("unnamed address: %d %s", st, d)
	}
	if st, d := view(l1, "get_address_from_name", bcsStr("devnet-alice")); st != 200 || d != "null" {
		t.Fatalf("unregistered name: %d %s", st, d)
	}
	if st, d := view(l1, "get_name_from_address", "AAAA"); st != 500 || !strings.Contains(d, "FAILED_TO_DESERIALIZE_ARGUMENT") {
		t.Errorf("bad address argument: %d %s", st, d)
	}

	exec := func(fn string, args ...[]byte) (uint32, string) {
		t.Helper()
		msg := &movev1.MsgExecute{Sender: engine.Bech32("init", k.Address()), ModuleAddress: mod, ModuleName: "usernames", FunctionName: fn, Args: args}
		num, seq, _ := eng.AccountState(k.Address())
		code, log, _ := deliverTx(t, net, l1, k, num, seq, 500_000, msg)
		return code, log
	}
	name := []byte("\x0cdevnet-alice")
	year := []byte{0x80, 0x33, 0xe1, 0x01, 0, 0, 0, 0} // 31536000 s, u64 little-endian
	if code, log := exec("set_name", name); code == 0 || !strings.Contains(log, "::usernames, code=") {
		t.Fatalf("set_name of an unregistered name: %d %s", code, log)
	}
	if code, log := exec("register_domain", []byte("\x02ab"), year); code == 0 {
		t.Fatalf("register_domain of a 2-letter name: %d %s", code, log)
	}
	if code, log := exec("register_domain", name, year); code != 0 {
		t.Fatalf("register_domain: %d %s", code, log)
	}
	// Registered, not yet the address's name.
	if st, d := nameOf(); st != 200 || d != "null" {
		t.Fatalf("registered, not set: %d %s", st, d)
	}
	if code, log := exec("set_name", name); code != 0 {
		t.Fatalf("set_name: %d %s", code, log)
	}
	if st, d := nameOf(); st != 200 || d != `"devnet-alice"` {
		t.Errorf("named address: %d %s", st, d)
	}
	if st, d := view(l1, "get_address_from_name", bcsStr("devnet-alice")); st != 200 || d != `"`+owner.String()+`"` {
		t.Errorf("registered name: %d %s, want %q", st, d, owner.String())
	}
	if code, _ := exec("register_domain", name, year); code == 0 {
		t.Error("a taken name registered again")
	}
	// Another module name at the package's address is one the chain does not have.
	if st, body := post(t, l1.REST()+"/initia/move/v1/accounts/"+mod+"/modules/nope/view_functions/get_name_from_address",
		map[string]any{"type_args": []string{}, "args": []string{base64.StdEncoding.EncodeToString(owner[:])}}); st != 500 || !strings.Contains(string(body), "LINKER_ERROR") {
		t.Errorf("unknown module at the username address: %d %s", st, body)
	}
	if st, d := view(l1, "get_nothing", base64.StdEncoding.EncodeToString(owner[:])); st != 500 || !strings.Contains(d, "FUNCTION_RESOLUTION_FAILURE") {
		t.Errorf("unknown function of the username module: %d %s", st, d)
	}
	rollup, _ := net.Chain("move-names-1")
	if st, d := view(rollup, "get_name_from_address", base64.StdEncoding.EncodeToString(owner[:])); st != 500 || !strings.Contains(d, "LINKER_ERROR") {
		t.Errorf("rollup: %d %s", st, d)
	}
}
