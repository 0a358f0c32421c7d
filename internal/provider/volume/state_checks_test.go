package volume

import (
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// stateIs checks top-level attribute attr of addr in the state after a
// step.
func stateIs(addr, attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want)
}

// plannedIs checks top-level attribute attr of addr in a step's plan.
func plannedIs(addr, attr string, want knownvalue.Check) plancheck.PlanCheck {
	return plancheck.ExpectKnownValue(addr, tfjsonpath.New(attr), want)
}
