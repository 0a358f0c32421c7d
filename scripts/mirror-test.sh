#!/usr/bin/env bash
# make test-install: berth installed the way users install it. Builds a
# snapshot release for this platform with goreleaser (from tools/goreleaser;
# signing skipped), then TestAccInstall_filesystemMirror zips it as the
# registry does, lays it out as a filesystem mirror and has terraform (and
# OpenTofu, and the newer Terraform when there is one) install it from
# there and nothing else: lock file hash, tampered zip, quickstart plan.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/tools-lib.sh

gr="$(tool_bin tools/goreleaser github.com/goreleaser/goreleaser/v2 github.com/goreleaser/goreleaser/v2 goreleaser)"
dist="$(mktemp -d)"
trap 'rm -rf "$dist"' EXIT
"$gr" build --snapshot --single-target --clean --id provider --output "$dist/terraform-provider-berth" >&2
version="$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json | head -n1)"
[[ -n "$version" ]] || { echo "mirror-test: no version in dist/metadata.json" >&2; exit 1; }
echo "mirror-test: built berth $version for $(go env GOOS)_$(go env GOARCH)" >&2

export BERTH_RELEASE_BINARY="$dist/terraform-provider-berth" BERTH_RELEASE_VERSION="$version"
TOFU_BIN="$(scripts/tofu-bin.sh)"
TF_NEWER="$(scripts/tf-newer.sh)"
export TOFU_BIN TF_NEWER
TESTARGS='TestAccInstall_' GOTESTFLAGS='-v' scripts/testacc.sh
