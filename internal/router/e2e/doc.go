// Package e2e proves the router against a running devnet (internal/devnet with
// manual blocks). For every route kind the router serves (same-chain send, OPinit deposit,
// fast IBC and OPinit withdrawal from a rollup, rollup → rollup over the L1 with
// packet-forward, an external Cosmos chain reached over IBC and `ibc/` vouchers unwound to it,
// a two-transaction route, a deposit whose op hook continues over IBC) its tests call
// /v2/fungible/route, /op-hook and /v2/fungible/msgs like a wallet, decode the returned amino
// JSON into the real protobuf messages, sign them with a test key (SIGN_MODE_DIRECT and
// SIGN_MODE_LEGACY_AMINO_JSON), broadcast them over CometBFT RPC and watch the destination
// balance over Cosmos REST until the promised amount arrives. ophook_test.go plays
// InterwovenKit on every route with required_op_hook (its six-field /op-hook body, the hook
// signed with EIP-191 as its signer does, /msgs, submit, status) and checks the wrapped
// 18-decimal balance on the EVM rollup, the way back by OPinit withdrawal, and a failing hook.
//
// The package also owns the devnet registry copy the router's golden tests run over
// (internal/router/registry/testdata/devnet): TestDevnetRegistryCopy fails when the devnet
// writes something else, and rewrites the copy with -update.
//
// The package has tests only.
package e2e
