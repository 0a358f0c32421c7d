#!/usr/bin/env bash
# Prints the absolute path of a nomad binary on stdout, building the pinned
# version into the user cache when none is available:
#
#   1. $NOMAD_BIN, if set (it must be an executable file);
#   2. nomad on PATH;
#   3. ${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-<version>/nomad;
#   4. otherwise build that cache file from the tools/nomad module.
#
# `nomad-bin.sh newest` does the same for the newest Nomad the module proxy
# serves (tools/nomad-newest), the compatibility line's agent; it reads
# $NOMAD_NEWEST_BIN instead of $NOMAD_BIN and never takes nomad from PATH.
#
# Progress and errors go to stderr, so `NOMAD_BIN=$(scripts/nomad-bin.sh)`
# works. Keep the version in sync with internal/devagent.NomadVersion.
set -euo pipefail

version=1.10.5
module_dir=nomad
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/tools-lib.sh"

build_nomad() {
	command -v go >/dev/null 2>&1 || {
		echo "nomad-bin.sh: no nomad binary and no go toolchain to build one" >&2
		return 1
	}
	echo "building Nomad v$version from the Go module proxy, takes ~4 minutes on a cold cache" >&2
	# go.mod and go.sum are committed complete: build read-only so a build
	# never rewrites them (go mod tidy fails on test-only imports of
	# Nomad's dependencies anyway).
	(cd "$root/tools/$module_dir" && GOFLAGS=-mod=readonly go build -o "$1" github.com/hashicorp/nomad)
}

if [[ "${1:-}" == newest ]]; then
	# Keep in sync with tools/nomad-newest/go.mod and README's table.
	version=1.11.3
	module_dir=nomad-newest
	NOMAD_BIN="${NOMAD_NEWEST_BIN:-}"
	if [[ -z "$NOMAD_BIN" ]]; then
		cached_binary "${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-$version" nomad build_nomad
		exit 0
	fi
fi

if [[ -n "${NOMAD_BIN:-}" ]]; then
	if [[ -f "$NOMAD_BIN" && -x "$NOMAD_BIN" ]]; then
		abspath "$NOMAD_BIN"
		exit 0
	fi
	echo "nomad-bin.sh: NOMAD_BIN=$NOMAD_BIN is not an executable file" >&2
	exit 1
fi

if path="$(type -P nomad)"; then
	abspath "$path"
	exit 0
fi

cached_binary "${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-$version" nomad build_nomad
