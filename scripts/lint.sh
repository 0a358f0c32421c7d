#!/usr/bin/env bash
# golangci-lint, built from tools/golangci on first use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/tools-lib.sh
gl="$(tool_bin tools/golangci github.com/golangci/golangci-lint/v2 github.com/golangci/golangci-lint/v2/cmd/golangci-lint golangci-lint)"
"$gl" config verify
"$gl" run ./...
# Types, not only import paths: no Nomad API type (alias or value handed
# over by nomadclient) in the layers above nomadclient.
go run ./internal/lint/nomadtypes/cmd/nomadtypes ./internal/provider/... ./internal/server/... ./internal/workflow
