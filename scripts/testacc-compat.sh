#!/usr/bin/env bash
# The compatibility line: an acceptance subset run against the newest Nomad
# the Go module proxy serves (scripts/nomad-bin.sh newest, built from
# tools/nomad-newest), while the main suite runs on the oldest berth
# supports. The subset: the quickstart, one basic lifecycle per resource
# kind and the data sources' basic reads, the jobspec corpus of the agent's
# own version, every test named ...NewerNomad (acctest.NeedNewerNomad: they
# skip on the main suite's agent) and the node intro token tests. Running
# the whole suite twice would double make test's time; berth's own logic
# does not depend on the agent's version, what Nomad accepts and reports
# back does.
#
# It fails when a test fails, when a ...NewerNomad test is skipped (or does
# not run at all) here, and when no test ran.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

tests=(
	'TestAccQuickstart_.*'
	# One basic lifecycle per resource kind.
	TestAccJob_twoGroupsLifecycle
	TestAccInstance_lifecycleAndUpdate
	TestAccVolume_lifecycle
	TestAccVolumeCSI_createdMountedDeleted
	TestAccHostVolumeRegistration_lifecycle
	TestAccCSIVolumeRegistration_lifecycle
	TestAccNodeSettings_drainAndMeta
	TestAccNodePool_lifecycle
	TestAccNodeReservation_lifecycle
	TestAccLease_durationInPlaceAndImport
	TestAccVariable_lifecycle
	TestAccNamespace_lifecycle
	TestAccACLPolicy_lifecycle
	TestAccACLRole_lifecycle
	TestAccACLToken_lifecycle
	TestAccACLAuthMethod_jwtLifecycle
	TestAccACLBindingRule_lifecycle
	TestAccSchedulerSettings_lifecycle
	TestAccACLBootstrap_secondProviderSameApply
	# The ephemeral resources.
	TestAccACLTokenSecret_neverStored
	TestAccVariableSecret_checkAndSetAndNoTrace
	# The data sources' basic reads.
	TestAccNodesDataSource_basic
	TestAccNodeDataSource_lookup
	TestAccNodePoolsDataSource_matchesNomad
	TestAccInstanceDataSource_basic
	TestAccVolumeDataSource_everyAttribute
	TestAccLease_resultData
	TestAccVariable_namespaceAndDataSource
	TestAccNamespaceDataSource_reads
	TestAccACLPoliciesDataSource_andRoles
	TestAccACLTokensDataSource_noSecrets
	TestAccAllocationsDataSource_jobAndFilter
	TestAccDeploymentsDataSource_asNomadSays
	TestAccJWKSDataSource_asNomadSays
	TestAccRegionsDataSource_asNomadSays
	TestAccScalingPoliciesDataSource_asNomadSays
	TestAccSchedulerSettingsDataSource_asNomadSays
	TestAccCSIPluginsDataSource_healthy
	TestAccDatacentersDataSource_prefixAndDownNodes
	TestAccClusterDataSource_threeServersOneDown
	TestAccJobDataSource_matchesNomad
	TestAccJobspecDataSource_matchesClusterParse
	TestAccACLPolicyDataSource_matchesNomad
	TestAccACLRoleDataSource_byIDAndByName
	TestAccACLTokenDataSource_noSecret
	TestAccNodePoolDataSource_matchesNomad
	TestAccCSIPluginDataSource_waitForHealthy
	TestAccScalingPolicyDataSource_asNomadSays
	# The refresh of unchanged jobs from one job listing, and a changed one found.
	TestAccRefresh_sharedListingFindsTheOneChangedJob
	# Nomad's own jobspecs, of the agent's version.
	'TestAccJob_corpus.*'
	# What only the newer Nomad has, and the node intro tokens.
	'Test.*NewerNomad'
	'Test.*NodeIntroToken.*'
)
run="^(?:$(IFS='|'; echo "${tests[*]}"))\$"

# Always an agent of our own: a NOMAD_ADDR given from outside would be
# some other Nomad, of some other version.
if [[ -n "${NOMAD_ADDR:-}" ]]; then
	echo "testacc-compat: ignoring NOMAD_ADDR=$NOMAD_ADDR: this line starts its own agents of the newest Nomad" >&2
fi
unset NOMAD_ADDR NOMAD_TOKEN

NOMAD_BIN="$(scripts/nomad-bin.sh newest)"
export NOMAD_BIN
agent_version="$("$NOMAD_BIN" version | sed -n 's/^Nomad v\([^ ]*\).*/\1/p' | head -n1)"
echo "testacc-compat: Nomad $agent_version from $NOMAD_BIN" >&2
case "$agent_version" in
1.[0-9] | 1.[0-9].* | 1.10 | 1.10.* | "")
	echo "testacc-compat: FAIL: $NOMAD_BIN is Nomad '${agent_version}', not a Nomad 1.11 or later" >&2
	exit 1
	;;
esac

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start=$SECONDS
rc=0
# NEWER is left empty: none of these tests needs a newer Terraform, and
# one that did would show as a skip below, not vanish.
NEWER='' TESTARGS="$run" GOTESTFLAGS="-v ${GOTESTFLAGS:-}" scripts/testacc.sh 2>&1 | tee "$log" || rc=$?
elapsed=$((SECONDS - start))

# Top-level results only (subtests are indented).
mapfile -t passed < <(sed -n 's/^--- PASS: \([^ ]*\) .*/\1/p' "$log")
mapfile -t failed < <(sed -n 's/^--- FAIL: \([^ ]*\) .*/\1/p' "$log")
mapfile -t skipped < <(sed -n 's/^--- SKIP: \([^ ]*\) .*/\1/p' "$log")
# Every ...NewerNomad test in the source must have passed here.
mapfile -t newer < <(grep -rhoE --include='*_test.go' '^func Test[A-Za-z0-9_]*NewerNomad\(' . | sed 's/^func //; s/($//' | sort -u)
newer_not_run=()
for t in "${newer[@]}"; do
	grep -qx -- "--- \(PASS\|FAIL\|SKIP\): $t .*" "$log" || newer_not_run+=("$t")
done
newer_skipped=()
for t in "${skipped[@]}"; do
	[[ "$t" == *NewerNomad ]] && newer_skipped+=("$t")
done

echo "==== testacc-compat on Nomad $agent_version: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped in $((elapsed / 60))m$((elapsed % 60))s ====" >&2
((${#failed[@]} == 0)) || printf 'testacc-compat: FAIL %s\n' "${failed[@]}" >&2
((${#skipped[@]} == 0)) || printf 'testacc-compat: skipped %s\n' "${skipped[@]}" >&2
status=0
if ((rc != 0)); then
	echo "testacc-compat: FAIL: the tests on Nomad $agent_version failed (exit $rc; output above)" >&2
	status=1
fi
if ((${#newer_skipped[@]} > 0)); then
	echo "testacc-compat: FAIL: skipped on Nomad $agent_version, the line they exist for: ${newer_skipped[*]}" >&2
	status=1
fi
if ((${#newer_not_run[@]} > 0)); then
	echo "testacc-compat: FAIL: did not run on Nomad $agent_version: ${newer_not_run[*]}" >&2
	status=1
fi
if ((${#passed[@]} + ${#failed[@]} + ${#skipped[@]} == 0)); then
	echo "testacc-compat: FAIL: no test ran (-run '$run')" >&2
	status=1
fi
exit "$status"
