#!/usr/bin/env bash
# make test's acceptance stage: the suite under the Terraform on PATH
# (testacc, leaving out the tests that need a newer CLI) on the oldest
# Nomad berth supports and, beside it, testacc-newer, testacc-tofu,
# testacc-compat (the compatibility line, on the newest Nomad) and
# test-install one after another. Each starts its own Nomad agents, so the
# two lines share nothing but the machine; most of a test's time is spent
# waiting on Nomad, not the CPU. The side line's output is kept in a file
# and printed after the suite's, and the stage fails when either line
# fails, naming what failed. A failing side script does not stop the ones
# after it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

side_log="$(mktemp)"
side_failed="$(mktemp)"
suite_log="$(mktemp)"
side_pid=""
cleanup() {
	# Never leave the side line running: its scripts stop their agents
	# when they end. (Ctrl-C reaches it too: it is in this process group.)
	if [[ -n "$side_pid" ]]; then
		wait "$side_pid" 2>/dev/null || true
	fi
	rm -f "$side_log" "$side_failed" "$suite_log"
}
trap cleanup EXIT

side_scripts=(testacc-newer testacc-tofu testacc-compat mirror-test)
(
	for s in "${side_scripts[@]}"; do
		rc=0
		"scripts/$s.sh" || rc=$?
		if ((rc != 0)); then
			echo "testacc-all: $s failed (exit $rc)"
			echo "$s (exit $rc)" >>"$side_failed"
		fi
	done
	[[ ! -s "$side_failed" ]]
) >"$side_log" 2>&1 &
side_pid=$!
echo "testacc-all: testacc-newer, testacc-tofu, testacc-compat and test-install run beside testacc (pid $side_pid); their output follows the suite's" >&2

suite=0
NEWER=skip scripts/testacc.sh 2>&1 | tee "$suite_log" || suite=$?

side=0
wait "$side_pid" || side=$?
side_pid=""
echo "==== testacc-newer, testacc-tofu, testacc-compat, test-install (ran beside testacc) ====" >&2
cat "$side_log" >&2
if ((suite != 0)); then
	echo "testacc-all: FAIL: the suite under $(terraform version | head -n1) (exit $suite)" >&2
fi
if ((side != 0)); then
	while read -r failed; do
		case "$failed" in
		testacc-compat*) what="the compatibility line on the newest Nomad, make testacc-compat" ;;
		testacc-newer*) what="the newer-Terraform tests, make testacc-newer" ;;
		testacc-tofu*) what="the OpenTofu subset, make testacc-tofu" ;;
		mirror-test*) what="berth installed from a filesystem mirror, make test-install" ;;
		*) what="" ;;
		esac
		echo "testacc-all: FAIL: $failed${what:+: $what} (output above)" >&2
	done <"$side_failed"
	[[ -s "$side_failed" ]] || echo "testacc-all: FAIL: the side line (exit $side; output above)" >&2
fi
if ((suite != 0 || side != 0)); then
	# A recap at the very end, where a CI excerpt that keeps only the
	# output's tail still shows which tests failed and why.
	echo "==== testacc-all: failed tests ====" >&2
	grep -hE -e '^\s*--- FAIL: ' -e '^panic: ' -e '^FAIL\s' "$suite_log" "$side_log" >&2 || true
	echo "---- lines logged by tests (the first 60; the failures' are among them) ----" >&2
	grep -hE -e '^\s+[A-Za-z0-9_]+_test\.go:[0-9]+: ' "$suite_log" "$side_log" | grep -v -e 'NOT RUN' -e 'corpus' | head -n 60 >&2 || true
fi
((suite == 0 && side == 0))
