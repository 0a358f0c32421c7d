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

if [[ -n "${TOFU_BIN:-}" ]]; then
	if [[ -f "$TOFU_BIN" && -x "$TOFU_BIN" ]]; then
		echo "$(cd "$(dirname "$TOFU_BIN")" && pwd)/$(basename "$TOFU_BIN")"
		exit 0
	fi
	echo "tofu-bin.sh: TOFU_BIN=$TOFU_BIN is not an executable file" >&2
	exit 1
fi

cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/berth/tofu-$version"
cache="$cache_dir/tofu"
if [[ -f "$cache" && -x "$cache" ]]; then
	echo "$cache"
	exit 0
fi

mkdir -p "$cache_dir"
if command -v flock >/dev/null 2>&1; then
	exec 9>"$cache_dir/.build.lock"
	flock 9
	if [[ -f "$cache" && -x "$cache" ]]; then
		echo "$cache"
		exit 0
	fi
fi

echo "building OpenTofu v$version from the Go module proxy, takes several minutes on a cold cache" >&2
src="$(cd "$cache_dir" && go mod download -json "github.com/opentofu/opentofu@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$src" ]] || { echo "tofu-bin.sh: could not download github.com/opentofu/opentofu@v$version" >&2; exit 1; }
tmp="$(mktemp "$cache_dir/.tofu.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
# The module cache is read-only; build from it as is. The version string
# is what tofu reports (its own release builds set it the same way).
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$tmp" \
	-ldflags "-X github.com/opentofu/opentofu/version.dev=no" ./cmd/tofu) >&2
chmod 0755 "$tmp"
"$tmp" version >&2
mv -f "$tmp" "$cache"
trap - EXIT INT TERM HUP
echo "tofu-bin.sh: built $cache" >&2
echo "$cache"
