#!/usr/bin/env bash
# make up: start a local Nomad dev agent (unless one from an earlier make up
# is still running) and apply examples/quickstart with the provider built
# into bin/, loaded through a dev_overrides CLI config: nothing is
# downloaded. make down undoes it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dev="$root/.dev"
mkdir -p "$dev"

command -v terraform >/dev/null 2>&1 || {
	echo "up: the terraform CLI is not on PATH; install Terraform 1.11 or later." >&2
	exit 1
}

NOMAD_BIN="$(scripts/nomad-bin.sh)"
export NOMAD_BIN
if [[ -f "$dev/agent.json" ]] && curl -fsS "$(bin/devagent addr -state "$dev/agent.json")/v1/agent/health" >/dev/null 2>&1; then
	echo "up: reusing the running agent from .dev/agent.json" >&2
else
	bin/devagent stop -state "$dev/agent.json" >/dev/null 2>&1 || true
	bin/devagent start -state "$dev/agent.json" -data-dir "$dev/nomad" -name berth-dev >/dev/null
fi
eval "$(bin/devagent env -state "$dev/agent.json" | sed 's/^/export /')"

cat >"$dev/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "berthhq/berth" = "$root/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$dev/terraformrc"
# Apply a copy, so state and lock files stay in .dev/. dev_overrides needs
# no init; terraform warns that overrides are in effect.
mkdir -p "$dev/quickstart"
cp examples/quickstart/*.tf "$dev/quickstart/"
terraform -chdir="$dev/quickstart" apply -auto-approve -input=false
echo
echo "Nomad is at $NOMAD_ADDR (UI: $NOMAD_ADDR/ui). Run 'make down' to stop it."
echo "To use terraform or nomad against it in your shell:"
echo "  eval \"\$(bin/devagent env -state .dev/agent.json | sed 's/^/export /')\"; export TF_CLI_CONFIG_FILE=$dev/terraformrc"
