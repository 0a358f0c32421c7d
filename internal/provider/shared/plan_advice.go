package shared

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Plan-time checks that read the cluster (drivers, budgets, a node's
// room), the prior state or the clock report what they find as warnings;
// the apply enforces the same rule as an error before it writes anything.
// Terraform's destroy first plans the whole configuration in normal mode
// (its pre-destroy refresh) and stops at any error of that plan, which a
// provider cannot tell apart from a real plan: an error there about a
// create that already failed would leave everything else in Nomad. Only
// the configuration itself may fail a plan. (DESIGN.md, "Plan-time checks
// never block a destroy".)

// ApplyRefuses ends the detail of a plan-time warning whose rule the apply
// enforces.
const ApplyRefuses = "Apply refuses this before writing anything to Nomad, unless it has changed by then."

// WarnAtPlan adds found to dst with every error turned into a warning at
// the same attribute, saying that apply refuses it.
func WarnAtPlan(dst *diag.Diagnostics, found diag.Diagnostics) {
	for _, d := range found {
		if d.Severity() != diag.SeverityError {
			dst.Append(d)
			continue
		}
		detail := d.Detail() + "\n\n" + ApplyRefuses
		if p, ok := d.(diag.DiagnosticWithPath); ok {
			dst.AddAttributeWarning(p.Path(), d.Summary(), detail)
		} else {
			dst.AddWarning(d.Summary(), detail)
		}
	}
}
