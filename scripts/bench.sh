#!/usr/bin/env bash
# make bench: starts a throwaway Nomad agent, then measures apply, plan
# (refresh) and destroy of N identical jobs through terraform_data (the
# floor), berth_instance (with and without wait_for_healthy) and, when
# PEER_PROVIDER names the other Nomad provider's binary (plain or gzipped),
# its nomad_job (detach = true and false). Prints the median of RUNS cycles,
# the requests each plan made, and PASS/FAIL per target; exits non-zero when
# a target fails. The agent is stopped whatever happens.
#
#   N            resources per configuration (default 200)
#   RUNS         cycles per variant (default 3)
#   PARALLELISM  terraform -parallelism (default 10)
#   PEER_PROVIDER path to terraform-provider-nomad (.gz is fine)
#   ONLY         comma-separated variants: floor,berth-nowait,berth-wait,job-nowait,job-wait,peer-detach,peer-wait
#   BENCH_JSON   write the results as JSON to this file
#   BASELINE     JSON of an earlier run: fail a berth figure more than 10% worse
#   BASE         a git revision (e.g. main~3): built and run beside the working
#                tree's provider in the same cycles (rows "base-…"); fail a
#                berth figure more than 10% worse than its base row
#   BASE_PROVIDER  the same with a provider binary instead of a revision
#   BERTH_PPROF_DIR  passed to the plugins as <dir>/<variant>/<run>-<phase>
#   GROWTH=1     growth mode: every job has a constraint no node meets, so it
#                registers and is compared but never places (the figures
#                measure the providers and the agent's API, not the scheduler);
#                only floor, berth-nowait, job-nowait and peer-detach run, and
#                no target is judged
#   RTT          a round-trip time (e.g. 25ms) added to every request through
#                the proxy, for every provider alike: a cluster across a network;
#                with GROWTH=1 the remote plan's targets are judged (README)
#   GROWTH_NS    growth mode at each of these N in turn ("100 300 1000"),
#                then a growth table (cost per resource against the smallest N)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

command -v terraform >/dev/null 2>&1 || {
	echo "bench: the terraform CLI is not on PATH; install Terraform 1.11 or later." >&2
	exit 2
}

abspath() { [[ "$1" = /* ]] && printf '%s\n' "$1" || printf '%s/%s\n' "$PWD" "$1"; }
args=(-n "${N:-200}" -runs "${RUNS:-3}" -parallelism "${PARALLELISM:-10}" -provider "$root/bin/terraform-provider-berth")
if [[ -n "${PEER_PROVIDER:-}" ]]; then
	[[ -f "$PEER_PROVIDER" ]] || { echo "bench: PEER_PROVIDER=$PEER_PROVIDER is not a file" >&2; exit 2; }
	args+=(-peer "$(abspath "$PEER_PROVIDER")")
fi
[[ -n "${ONLY:-}" ]] && args+=(-only "$ONLY")
[[ -n "${BENCH_JSON:-}" ]] && args+=(-json "$(abspath "$BENCH_JSON")")
[[ -n "${BASELINE:-}" ]] && args+=(-baseline "$(abspath "$BASELINE")")
case "${GROWTH:-}" in
"" | 0) ;;
1) args+=(-growth) ;;
*) echo "bench: GROWTH=$GROWTH: give 1 (or nothing)" >&2; exit 2 ;;
esac
[[ -n "${GROWTH_NS:-}" ]] && args+=(-ns "$GROWTH_NS")
[[ -n "${RTT:-}" ]] && args+=(-rtt "$RTT")

go build -o bin/bench ./internal/bench/cmd/bench

tmp="$(mktemp -d)"
state="$tmp/agent.json"
cleanup() {
	if [[ -f "$state" ]]; then
		bin/devagent stop -state "$state" || echo "bench: stopping the agent failed" >&2
	fi
	[[ -d "$tmp/base-src" ]] && git worktree remove --force "$tmp/base-src"
	rm -rf "$tmp"
}
trap cleanup EXIT
# A signal ends the script through exit, so the EXIT trap stops the agent.
trap 'exit 130' INT TERM
if [[ -n "${BASE:-}" ]]; then
	rev="$(git rev-parse --verify "${BASE}^{commit}")" || { echo "bench: BASE=$BASE is not a commit" >&2; exit 2; }
	git worktree add --detach "$tmp/base-src" "$rev" >/dev/null
	(cd "$tmp/base-src" && go build -o "$tmp/terraform-provider-berth-base" .)
	git worktree remove --force "$tmp/base-src"
	BASE_PROVIDER="$tmp/terraform-provider-berth-base"
	echo "bench: base rows run $BASE ($rev)" >&2
fi
if [[ -n "${BASE_PROVIDER:-}" ]]; then
	[[ -f "$BASE_PROVIDER" ]] || { echo "bench: BASE_PROVIDER=$BASE_PROVIDER is not a file" >&2; exit 2; }
	args+=(-base "$(abspath "$BASE_PROVIDER")")
fi

NOMAD_BIN="$(scripts/nomad-bin.sh)"
export NOMAD_BIN
bin/devagent start -state "$state" -name berth-bench -minimal-chroot >/dev/null
echo "bench: Nomad agent at $(bin/devagent addr -state "$state") (stopped at the end)" >&2

bin/bench -agent-state "$state" -work "$tmp/work" "${args[@]}"
