#!/usr/bin/env bash
# Prints the absolute path of an OpenTofu binary on stdout, building the
# pinned version into the user cache when none is available:
#
#   1. $TOFU_BIN, if set (it must be an executable file);
#   2. ${XDG_CACHE_HOME:-$HOME/.cache}/berth/tofu-<version>/tofu;
#   3. otherwise download the module from the Go module proxy and build
#      ./cmd/tofu inside it (`go install …@version` refuses modules with
#      replace directives, which OpenTofu's go.mod has).
#
# Progress and errors go to stderr, so `TOFU_BIN=$(scripts/tofu-bin.sh)`
# works.
set -euo pipefail

version=1.12.6
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/tools-lib.sh"

if [[ -n "${TOFU_BIN:-}" ]]; then
	if [[ -f "$TOFU_BIN" && -x "$TOFU_BIN" ]]; then
		abspath "$TOFU_BIN"
		exit 0
	fi
	echo "tofu-bin.sh: TOFU_BIN=$TOFU_BIN is not an executable file" >&2
	exit 1
fi

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/berth/tofu-$version"

build_tofu() {
	echo "building OpenTofu v$version from the Go module proxy, takes several minutes on a cold cache" >&2
	local src
	src="$(cd "$cache_dir" && go mod download -json "github.com/opentofu/opentofu@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	[[ -d "$src" ]] || { echo "tofu-bin.sh: could not download github.com/opentofu/opentofu@v$version" >&2; return 1; }
	# The module cache is read-only; build from it as is. The version string
	# is what tofu reports (its own release builds set it the same way).
	(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$1" \
		-ldflags "-X github.com/opentofu/opentofu/version.dev=no" ./cmd/tofu)
}

cached_binary "$cache_dir" tofu build_tofu
