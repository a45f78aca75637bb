#!/usr/bin/env bash
# Regenerates internal/chain/protos from the .proto files in this directory.
# Needs protoc 3.21.12 (Debian bookworm's protobuf-compiler, with the well-known types of
# libprotobuf-dev under /usr/include) and protoc-gen-go v1.36.12:
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
# The generated files record both versions in their headers, so other versions would change
# every file; the script refuses them rather than produce that diff. .ci/run runs it and fails
# when the committed files differ from its output.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$PATH:$(go env GOPATH)/bin"
WKT_INCLUDE="${WKT_INCLUDE:-/usr/include}"
want_protoc="libprotoc 3.21.12"
want_gen="protoc-gen-go v1.36.12"
have_protoc=$(protoc --version 2>/dev/null || echo "no protoc")
have_gen=$(protoc-gen-go --version 2>/dev/null || echo "no protoc-gen-go")
if [ "$have_protoc" != "$want_protoc" ] || [ "$have_gen" != "$want_gen" ]; then
  echo "gen.sh: need $want_protoc and $want_gen, found $have_protoc and $have_gen" >&2
  exit 1
fi
find internal/chain/protos -name "*.pb.go" -delete 2>/dev/null || true
mkdir -p internal/chain/protos
# shellcheck disable=SC2046
protoc -I proto -I "$WKT_INCLUDE" \
  --go_out=. --go_opt=module=github.com/rollgate/rollgate \
  $(cd proto && find . -name '*.proto' | sed 's|^\./||' | sort)
