package move

import (
	"regexp"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The username module Initia's L1 publishes, at the addresses InterwovenKit's network
// configs name (initia-labs/interwovenkit packages/interwovenkit-react/src/public/data/
// constants.ts, usernamesModuleAddress of MAINNET and TESTNET): the kit resolves the
// connected address to a name, and a typed "name.init" to an address, with the module's two
// views (src/data/username.ts: get_name_from_address with the address as 32 BCS bytes,
// get_address_from_name with the name as a BCS string, through @initia/utils' legacy
// view_functions route). The devnet's L1 publishes the module at both, so a dApp spreading
// either config finds it.
var (
	UsernamesMainnet = mustParse("0x72ed9b26ecdcd6a21d304df50f19abfdbe31d2c02f60c84627844620a45940ef")
	UsernamesTestnet = mustParse("0x42cd8467b1c86e59bf319e5664a09b6b5840bb3fac64f5ce690b5041c530565a")
)

func mustParse(s string) Addr {
	a, err := ParseAddr(s)
	if err != nil {
		panic("move: address " + s + ": " + err.Error())
	}
	return a
}

// Usernames is that module as the devnet runs it: a name registered with
// usernames::register_domain(name: String, duration: u64) belongs to its sender, and
// usernames::set_name(name: String) makes a name the sender owns the one its address
// resolves to. The views answer as the module's do, Option values in the VM's JSON: null
// for an address without a name or a name nobody holds (movevm crates/json
// move_to_json.rs: an empty option is null, a full one its value), the name as a JSON
// string, the address as a hex literal. Names live in the Move store and, unlike the real
// module's, do not expire (the duration is checked, then not kept).
type Usernames struct {
	// At is the address the module is published at (its keys in the store).
	At Addr
}

var _ Package = Usernames{}

// usernameRe is the name part the kit accepts before ".init" (username.ts validateUsername),
// lowercased as the kit sends it.
var usernameRe = regexp.MustCompile(`^[a-z0-9-]{3,64}$`)

// Abort codes of the devnet's module (error::invalid_argument, already_exists,
// permission_denied and not_found of its own reasons).
const (
	codeNameInvalid  = 0x10001
	codeNameTaken    = 0x80002
	codeNameNotOwned = 0x50003
	codeNameUnknown  = 0x60004
)

func (u Usernames) keyName(name string) string { return "usernames/" + u.At.Hex() + "/name/" + name }
func (u Usernames) keyAddr(a Addr) string      { return "usernames/" + u.At.Hex() + "/addr/" + a.Hex() }

// HasModule says which module names the package has (any other is the VM's LINKER_ERROR).
func (Usernames) HasModule(module string) bool { return module == "usernames" }

// Entry implements Package.
func (u Usernames) Entry(module, fn string) (func(*Call) error, uint64, bool) {
	if module != "usernames" {
		return nil, 0, false
	}
	switch fn {
	case "register_domain":
		return u.register, 60_000, true
	case "set_name":
		return u.setName, 40_000, true
	}
	return nil, 0, false
}

func (u Usernames) register(c *Call) error {
	name, err := c.Args.a.str(0)
	if err != nil {
		return BadArgs(err)
	}
	if _, err := c.Args.U64(1); err != nil {
		return BadArgs(err)
	}
	if !usernameRe.MatchString(name) {
		return AbortAt(u.At, "usernames", codeNameInvalid)
	}
	if _, taken := c.c.kv.Get(u.keyName(name)); taken {
		return AbortAt(u.At, "usernames", codeNameTaken)
	}
	c.c.kv.Set(u.keyName(name), []byte(c.Sender().Hex()))
	return nil
}

func (u Usernames) setName(c *Call) error {
	name, err := c.Args.a.str(0)
	if err != nil {
		return BadArgs(err)
	}
	owner, ok := c.c.kv.Get(u.keyName(name))
	if !ok {
		return AbortAt(u.At, "usernames", codeNameUnknown)
	}
	if string(owner) != c.Sender().Hex() {
		return AbortAt(u.At, "usernames", codeNameNotOwned)
	}
	c.c.kv.Set(u.keyAddr(c.Sender()), []byte(name))
	return nil
}

// View implements Package.
func (u Usernames) View(q sim.Query, module, fn string, a *Args) (string, bool, error) {
	if module != "usernames" {
		return "", false, nil
	}
	kv := q.Store(StoreName)
	switch fn {
	case "get_name_from_address":
		addr, err := a.Addr(0)
		if err != nil {
			return "", true, BadArgs(err)
		}
		name, ok := kv.Get(u.keyAddr(addr))
		if !ok {
			return "null", true, nil
		}
		// The name resolves only while its address still holds it.
		if owner, _ := kv.Get(u.keyName(string(name))); string(owner) != addr.Hex() {
			return "null", true, nil
		}
		return strconv.Quote(string(name)), true, nil
	case "get_address_from_name":
		name, err := a.a.str(0)
		if err != nil {
			return "", true, BadArgs(err)
		}
		owner, ok := kv.Get(u.keyName(name))
		if !ok {
			return "null", true, nil
		}
		addr, err := ParseAddr(string(owner))
		if err != nil {
			return "", true, err
		}
		return strconv.Quote(addr.String()), true, nil
	}
	return "", false, nil
}
