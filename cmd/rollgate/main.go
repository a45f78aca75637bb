package main

import (
	_ "github.com/cosmos/btcutil/bech32"
	_ "github.com/ethereum/go-ethereum/ethclient"
	_ "github.com/ethereum/go-ethereum/crypto"
	_ "github.com/ethereum/go-ethereum/accounts/abi"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/pressly/goose/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/crypto/sha3"
	_ "golang.org/x/crypto/ripemd160"
	_ "google.golang.org/protobuf/proto"
	_ "modernc.org/sqlite"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/holiman/uint256"
	_ "github.com/decred/dcrd/dcrec/secp256k1/v4"
	_ "github.com/hashicorp/golang-lru/v2"
)

func main() {}
