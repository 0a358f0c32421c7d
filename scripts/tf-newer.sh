#!/usr/bin/env bash
# Prints the path of a Terraform newer than the one on PATH, or nothing:
#   1. $TF_NEWER, if set;
#   2. the newest ../shared/tools/terraform-<version>.gz beside the project,
#      unpacked once into ${XDG_CACHE_HOME:-$HOME/.cache}/berth/terraform-<version>/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ -n "${TF_NEWER:-}" ]]; then
	[[ -x "$TF_NEWER" ]] || { echo "tf-newer.sh: TF_NEWER=$TF_NEWER is not executable" >&2; exit 1; }
	echo "$TF_NEWER"
	exit 0
fi
gz="$(ls -1 "$root"/../shared/tools/terraform-1.*.gz 2>/dev/null | sort -V | tail -n1 || true)"
[[ -n "$gz" ]] || exit 0
version="$(basename "$gz" .gz)"
bin="${XDG_CACHE_HOME:-$HOME/.cache}/berth/$version/terraform"
if [[ ! -x "$bin" ]]; then
	mkdir -p "$(dirname "$bin")"
	gunzip -c "$gz" >"$bin.tmp"
	chmod +x "$bin.tmp"
	mv -f "$bin.tmp" "$bin"
fi
echo "$bin"
