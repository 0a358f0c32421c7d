// Builds the newest Nomad release the module proxy serves, for the
// compatibility line of make test (scripts/testacc-compat.sh). Kept apart
// from tools/nomad so that each agent builds from its own dependency graph.
module github.com/berthhq/terraform-provider-berth/tools/nomad-newest

go 1.26.0

require github.com/hashicorp/nomad v1.11.3

replace (
	github.com/Microsoft/go-winio => github.com/endocrimes/go-winio v0.4.13-0.20190628114223-fb47a8b41948
	github.com/hashicorp/hcl => github.com/hashicorp/hcl v1.0.1-nomad-1
	github.com/hashicorp/nomad/api => github.com/hashicorp/nomad/api v0.0.0-20260311091027-173ab08a0210
)
