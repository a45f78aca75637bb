#!/usr/bin/env bash
# Regenerates internal/chain/protos from the .proto files in this directory.
# Needs protoc (3.21+, with the well-known types under /usr/include) and
# protoc-gen-go v1.36.12:  go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(go env GOPATH)/bin:$PATH"
WKT_INCLUDE="${WKT_INCLUDE:-/usr/include}"
find internal/chain/protos -name "*.pb.go" -delete 2>/dev/null || true
mkdir -p internal/chain/protos
# shellcheck disable=SC2046
protoc -I proto -I "$WKT_INCLUDE" \
  --go_out=. --go_opt=module=github.com/rollgate/rollgate \
  $(cd proto && find . -name '*.proto' | sed 's|^\./||' | sort)
