// Package txcodec builds, signs, encodes, hashes, decodes and verifies Cosmos SDK
// transactions the way the chains we simulate and index do: TxRaw with SIGN_MODE_DIRECT
// or SIGN_MODE_LEGACY_AMINO_JSON, secp256k1 (cosmos) and eth_secp256k1 (initia) keys,
// proto JSON exactly as the chain's REST gateway renders it, and legacy amino JSON for
// the router's messages. Message types come from internal/chain/protos, whose generated
// packages register themselves in protoregistry.GlobalTypes.
package txcodec
