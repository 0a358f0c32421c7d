#!/usr/bin/env bash
# make test's acceptance stage: the suite under the Terraform on PATH
# (testacc, leaving out the tests that need a newer CLI) and, beside it,
# testacc-newer, testacc-tofu and test-install one after another. Each
# starts its own Nomad agents, so the two lines share nothing but the
# machine; most of a test's time is spent waiting on Nomad, not the CPU.
# The side line's output is kept in a file and printed after the suite's,
# and the stage fails when either line fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

side_log="$(mktemp)"
side_pid=""
cleanup() {
	# Never leave the side line running: its scripts stop their agents
	# when they end. (Ctrl-C reaches it too: it is in this process group.)
	if [[ -n "$side_pid" ]]; then
		wait "$side_pid" 2>/dev/null || true
	fi
	rm -f "$side_log"
}
trap cleanup EXIT

(
	set -euo pipefail
	scripts/testacc-newer.sh
	scripts/testacc-tofu.sh
	scripts/mirror-test.sh
) >"$side_log" 2>&1 &
side_pid=$!
echo "testacc-all: testacc-newer, testacc-tofu and test-install run beside testacc (pid $side_pid); their output follows the suite's" >&2

suite=0
NEWER=skip scripts/testacc.sh || suite=$?

side=0
wait "$side_pid" || side=$?
side_pid=""
echo "==== testacc-newer, testacc-tofu, test-install (ran beside testacc) ====" >&2
cat "$side_log" >&2
if ((suite != 0)); then
	echo "testacc-all: FAIL: the suite under $(terraform version | head -n1) (exit $suite)" >&2
fi
if ((side != 0)); then
	echo "testacc-all: FAIL: testacc-newer, testacc-tofu or test-install (exit $side; output above)" >&2
fi
((suite == 0 && side == 0))
