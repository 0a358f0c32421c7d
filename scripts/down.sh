#!/usr/bin/env bash
# make down: destroy what make up applied and stop the local Nomad agent.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dev="$root/.dev"

if [[ -f "$dev/agent.json" && -f "$dev/quickstart/terraform.tfstate" && -x bin/terraform-provider-berth ]]; then
	eval "$(bin/devagent env -state "$dev/agent.json" | sed 's/^/export /')"
	TF_CLI_CONFIG_FILE="$dev/terraformrc" terraform -chdir="$dev/quickstart" destroy -auto-approve -input=false ||
		echo "down: destroy failed; stopping the agent anyway" >&2
fi
if [[ -x bin/devagent ]]; then
	bin/devagent stop -state "$dev/agent.json"
else
	go run ./internal/devagent/cmd/devagent stop -state "$dev/agent.json"
fi
rm -rf "$dev"
echo "down: local Nomad stopped and .dev/ removed"
