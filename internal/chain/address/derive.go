package address

import "crypto/sha256"

// Hash is the SDK's address.Hash: SHA-256(SHA-256(typ) ‖ key), a 32-byte address for
// the derivation scheme of ADR-028.
func Hash(typ string, key []byte) []byte {
	th := sha256.Sum256([]byte(typ))
	h := sha256.New()
	h.Write(th[:])
	h.Write(key)
	return h.Sum(nil)
}

// Derive is the SDK's address.Derive: a sub-address of addr for key.
func Derive(addr, key []byte) []byte { return Hash(string(addr), key) }

// Module is the SDK's address.Module. Without derivation keys it is the classic 20-byte
// module account address SHA-256(name)[:20]; with keys it is
// Hash("module", name ‖ 0x00 ‖ keys[0]) then Derive for every further key (32 bytes).
// E.g. wasmd's classic contract address is Module("wasm", be64(code id) ‖ be64(instance)).
func Module(name string, keys ...[]byte) []byte {
	if len(keys) == 0 {
		return ModuleAccount(name)
	}
	k := append(append([]byte(name), 0), keys[0]...)
	addr := Hash("module", k)
	for _, key := range keys[1:] {
		addr = Derive(addr, key)
	}
	return addr
}

// ModuleAccount is authtypes.NewModuleAddress: SHA-256(name)[:20].
func ModuleAccount(name string) []byte {
	h := sha256.Sum256([]byte(name))
	return h[:20]
}
