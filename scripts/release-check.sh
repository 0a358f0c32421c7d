#!/usr/bin/env bash
# goreleaser check, built from tools/goreleaser on first use (~5 minutes
# cold). Validates .goreleaser.yml; publishes nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/tools-lib.sh
gr="$(tool_bin tools/goreleaser github.com/goreleaser/goreleaser/v2 github.com/goreleaser/goreleaser/v2 goreleaser)"
"$gr" check
