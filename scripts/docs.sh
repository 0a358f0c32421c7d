#!/usr/bin/env bash
# scripts/docs.sh generate|check: render docs/ with tfplugindocs from
# templates/, examples/ and the provider schemas. check fails when the
# committed docs/ differ from what generate writes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/tools-lib.sh

tfpd="$(tool_bin tools github.com/hashicorp/terraform-plugin-docs github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs tfplugindocs)"
export CHECKPOINT_DISABLE=1

# The schemas come from the provider itself (internal/schemajson), not from
# `terraform providers schema -json`: the docs then do not depend on which
# Terraform is installed (1.11 drops resource identities), and nothing is
# downloaded.
schema="$(mktemp)"
trap 'rm -f "$schema"' EXIT
go run ./internal/schemajson/cmd/schemajson >"$schema"

case "${1:-generate}" in
generate)
	"$tfpd" generate --provider-name berth --rendered-provider-name berth --providers-schema "$schema"
	"$tfpd" validate --provider-name berth
	;;
check)
	"$tfpd" generate --provider-name berth --rendered-provider-name berth --providers-schema "$schema" >/dev/null
	if ! git diff --exit-code --stat -- docs/ || [[ -n "$(git status --porcelain -- docs/)" ]]; then
		git status --porcelain -- docs/ >&2
		echo "docs: docs/ is stale; run 'make generate' and commit the result" >&2
		exit 1
	fi
	echo "docs: docs/ is up to date"
	;;
*)
	echo "usage: $0 generate|check" >&2
	exit 2
	;;
esac
