package acctest

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// DiagPath is the attribute path of d, or "" for a diagnostic without one.
func DiagPath(d diag.Diagnostic) string {
	if wp, ok := d.(diag.DiagnosticWithPath); ok {
		return wp.Path().String()
	}
	return ""
}
