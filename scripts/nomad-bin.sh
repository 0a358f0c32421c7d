#!/usr/bin/env bash
# Prints the absolute path of a nomad binary on stdout, building the pinned
# version into the user cache when none is available:
#
#   1. $NOMAD_BIN, if set (it must be an executable file);
#   2. nomad on PATH;
#   3. ${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-<version>/nomad;
#   4. otherwise build that cache file from the tools/nomad module.
#
# Progress and errors go to stderr, so `NOMAD_BIN=$(scripts/nomad-bin.sh)`
# works. Keep the version in sync with internal/devagent.NomadVersion.
set -euo pipefail

version=1.10.5
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

abspath() {
	local dir
	dir="$(cd "$(dirname "$1")" && pwd)"
	printf '%s/%s\n' "$dir" "$(basename "$1")"
}

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

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/berth/nomad-$version"
cache="$cache_dir/nomad"
if [[ -f "$cache" && -x "$cache" ]]; then
	echo "$cache"
	exit 0
fi

mkdir -p "$cache_dir"
# Serialise concurrent builds (e.g. parallel make jobs); the winner's binary
# is then picked up by the others.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$cache_dir/.build.lock"
	flock 9
	if [[ -f "$cache" && -x "$cache" ]]; then
		echo "$cache"
		exit 0
	fi
fi

command -v go >/dev/null 2>&1 || {
	echo "nomad-bin.sh: no nomad binary and no go toolchain to build one" >&2
	exit 1
}

echo "building Nomad v$version from the Go module proxy, takes ~4 minutes on a cold cache" >&2
# Build into a temporary file next to the target and rename it into place,
# so an interrupted build never leaves a broken binary behind.
tmp="$(mktemp "$cache_dir/.nomad.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
(
	cd "$root/tools/nomad"
	# go.mod and go.sum are committed complete: build read-only so a build
	# never rewrites them (go mod tidy fails on test-only imports of
	# Nomad's dependencies anyway).
	GOFLAGS=-mod=readonly go build -o "$tmp" github.com/hashicorp/nomad
) >&2
chmod 0755 "$tmp"
"$tmp" version >&2
mv -f "$tmp" "$cache"
trap - EXIT INT TERM HUP
echo "nomad-bin.sh: built $cache" >&2
echo "$cache"
