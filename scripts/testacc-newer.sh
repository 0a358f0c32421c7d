#!/usr/bin/env bash
# Acceptance tests of features that need a newer Terraform than the one on
# PATH (resource identity and import by identity need 1.12, list resources
# and actions 1.14), run with the newest Terraform found:
#   TF_NEWER=/path/to/terraform, or
#   ../shared/tools/terraform-<version>.gz next to the project (unpacked
#   once into ~/.cache/berth/terraform-<version>/).
# Under the Terraform on PATH these tests are skipped (tfversion.SkipBelow);
# here they run. Without a newer binary this says so loudly and runs none.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bin="$(scripts/tf-newer.sh)"
if [[ -z "$bin" ]]; then
	echo "testacc-newer: NOT RUN: no Terraform newer than $(terraform version | head -n1) found (set TF_NEWER);" >&2
	echo "testacc-newer: the identity, query and action tests ran only as skips." >&2
	exit 0
fi
echo "testacc-newer: $("$bin" version | head -n1) from $bin" >&2
TF_ACC_TERRAFORM_PATH="$bin" NEWER=only scripts/testacc.sh
