#!/usr/bin/env bash
# Runs unit and acceptance tests (TF_ACC=1). When NOMAD_ADDR is unset it
# starts a throwaway Nomad agent first and stops it afterwards, whether the
# tests pass or not. Tests never touch a Nomad they did not start unless
# NOMAD_ADDR is set explicitly.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

command -v terraform >/dev/null 2>&1 || [[ -n "${TF_ACC_TERRAFORM_PATH:-}" ]] || {
	echo "testacc: the terraform CLI is not on PATH (and TF_ACC_TERRAFORM_PATH is unset)." >&2
	echo "testacc: berth cannot download it here; install Terraform 1.11 or later and retry." >&2
	exit 1
}

work_dir="$(mktemp -d)"
state=""
acl_state=""
cleanup() {
	if [[ -n "$acl_state" ]]; then
		bin/devagent stop -state "$acl_state" || echo "testacc: stopping the ACL test agent failed" >&2
	fi
	if [[ -n "$state" ]]; then
		bin/devagent stop -state "$state" || echo "testacc: stopping the test agent failed" >&2
	fi
	rm -rf "$work_dir"
}
trap cleanup EXIT

# The tests that run the Terraform CLI against an installed provider
# (acctest.BuildProviderBinary) take this one build instead of each test
# binary building its own.
go build -o "$work_dir/provider/terraform-provider-berth" .
export BERTH_TEST_PROVIDER_BIN="$work_dir/provider/terraform-provider-berth"

if [[ -z "${NOMAD_ADDR:-}" ]]; then
	NOMAD_BIN="$(scripts/nomad-bin.sh)"
	export NOMAD_BIN
	state="$work_dir/agent.json"
	eval "$(bin/devagent start -state "$state" -name berth-acc -minimal-chroot | sed 's/^/export /')"
	export BERTH_TEST_AGENT_STATE="$state"
	echo "testacc: Nomad agent at $NOMAD_ADDR (stopped when the tests end)" >&2
	# A second agent with ACL enabled and bootstrapped, for the packages
	# whose TestMain calls acctest.RunACL (variables, namespaces, ACL, ...):
	# they read its address and management token from this state file.
	acl_state="$work_dir/acl-agent.json"
	bin/devagent start -state "$acl_state" -name berth-acc-acl -acl -minimal-chroot >/dev/null
	export BERTH_TEST_ACL_AGENT_STATE="$acl_state"
	echo "testacc: ACL-enabled Nomad agent started (state $acl_state; stopped when the tests end)" >&2
else
	echo "testacc: using the Nomad at NOMAD_ADDR=$NOMAD_ADDR" >&2
fi

# The Terraform layer is one test binary per package (the root, shared and
# each resource family). -p 1 runs one binary at a time, so no more than
# PARALLEL acceptance tests (4) run at once, as when it was one package;
# every binary shares the one agent above through BERTH_TEST_AGENT_STATE.
args=(-count=1 -p "${PACKAGES:-1}" -timeout "${TIMEOUT:-60m}" -parallel "${PARALLEL:-4}")
[[ -n "${TESTARGS:-}" ]] && args+=(-run "$TESTARGS")
# The tests of features that need Terraform >= 1.12 (identity, query,
# actions, moved from the other provider), by name. NEWER=only runs just
# them (scripts/testacc-newer.sh, with a newer CLI); NEWER=skip leaves them
# out (make test, which runs them in testacc-newer: under an older CLI they
# would only skip, some after minutes of setup).
newer_tests='Identity_|Query_|Action_|Moved_'
case "${NEWER:-}" in
"") ;;
only) args+=(-run "$newer_tests") ;;
skip) args+=(-skip "$newer_tests") ;;
*) echo "testacc: NEWER=$NEWER: give only or skip" >&2; exit 2 ;;
esac
TF_ACC=1 go test ./... "${args[@]}" ${GOTESTFLAGS:-}
