package job

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// A jobspec that parses to another job each time (uuidv4() in meta, in a
// template) updates its job on every apply. The plan says so once, at
// `jobspec`, naming the fields. Only a plan that already changes the job
// parses it a second time (about a millisecond): such a jobspec always
// changes it (on create, and through the drift every refresh finds), and
// the unchanged plan of a steady job, the common case, parses nothing.

const unstableSummary = "The job changes on every apply"

// describeChanging is jobspec.Describe for a plan that changes the job,
// warning when the jobspec parses differently twice in a row; false after
// reporting a jobspec the parser refuses.
func describeChanging(ctx context.Context, nomad *nomadclient.Client, s jobspec.Spec, diags *diag.Diagnostics) (jobspec.Summary, bool) {
	sum, unstable, err := nomad.DescribeJobspecUnstable(ctx, s, "")
	if err != nil {
		addJobspecError(diags, err)
		return sum, false
	}
	if len(unstable) > 0 {
		diags.AddAttributeWarning(path.Root("jobspec"), unstableSummary, fmt.Sprintf(
			"Job %q's jobspec gives these fields a different value each time it is parsed:\n  - %s\n"+
				"It calls a function whose result differs on every parse (such as uuidv4() or bcrypt()), so every refresh "+
				"finds the job in Nomad different from its jobspec, every plan updates it, and every apply registers a new "+
				"version. If that is not what you want, compute the value once outside the jobspec and pass it in: declare a "+
				"variable block in the jobspec and set it through `variables` from a value Terraform keeps (a Terraform "+
				"variable, or a resource such as random_uuid).", sum.ID, strings.Join(unstable, "\n  - ")))
	}
	return sum, true
}

// stableDrift is drift without the fields the jobspec itself changes on
// every parse: right after a registration those differ because the
// refresh parsed again, not because Nomad normalized them (the plan
// already warned about them).
func stableDrift(ctx context.Context, nomad *nomadclient.Client, m *jobModel, drift []attr.Value, diags *diag.Diagnostics) []attr.Value {
	if len(drift) == 0 {
		return nil
	}
	s, ok := m.spec(ctx, diags)
	if !ok {
		return drift
	}
	_, unstable, err := nomad.DescribeJobspecUnstable(ctx, s, m.Namespace.ValueString())
	if err != nil || len(unstable) == 0 {
		return drift
	}
	return slices.DeleteFunc(slices.Clone(drift), func(v attr.Value) bool {
		line, _ := v.(types.String)
		field := driftField(line.ValueString())
		return slices.ContainsFunc(unstable, func(u string) bool { return u == field || within(u, field) })
	})
}

// driftField is the field a drift line names: what comes before the first
// ": " outside a block's quoted label.
func driftField(line string) string {
	quoted := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ':' && !quoted && strings.HasPrefix(line[i:], ": "):
			return line[:i]
		}
	}
	return line
}

// within: field u is inside field f (a map key of f's map, an attribute
// of f's block): drift compares a map whole, unstable fields name the key.
func within(u, f string) bool {
	rest, ok := strings.CutPrefix(u, f)
	return ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, " / ") || strings.HasPrefix(rest, "["))
}
