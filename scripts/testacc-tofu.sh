#!/usr/bin/env bash
# The acceptance subset that runs with OpenTofu (built by scripts/tofu-bin.sh
# from the Go module proxy, or TOFU_BIN): the quickstart, each resource's
# and data source's basic lifecycle, and import by identity (OpenTofu 1.12
# has resource identities; it has no `terraform query` or actions, whose
# tests skip by version). Running the whole suite a second time would
# double make test's time for little more coverage: the rest exercises
# berth's own logic, which does not depend on the CLI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

tests='TestAccQuickstart_|TestAccInstance_lifecycleAndUpdate|TestAccVolume_lifecycle|TestAccNodeReservation_lifecycle|TestAccNodePool_lifecycle'
tests+='|TestAccLease_durationInPlaceAndImport|TestAccNodesDataSource_basic|TestAccInstanceDataSource_basic|Identity_importByIdentity'

TOFU="$(scripts/tofu-bin.sh)"
# A CLI configuration that names a missing file makes tofu print a warning
# into `tofu version`'s output, which terraform-plugin-testing then cannot
# parse: use an empty one instead.
if [[ -n "${TF_CLI_CONFIG_FILE:-}" && ! -f "$TF_CLI_CONFIG_FILE" ]]; then
	rc="$(mktemp)"
	trap 'rm -f "$rc"' EXIT
	export TF_CLI_CONFIG_FILE="$rc"
fi
echo "testacc-tofu: $("$TOFU" version | head -n1) from $TOFU" >&2
TF_ACC_TERRAFORM_PATH="$TOFU" TF_ACC_PROVIDER_HOST=registry.opentofu.org TESTARGS="$tests" scripts/testacc.sh
