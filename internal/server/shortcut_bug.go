package server

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// shortcutBug is the error a shortcut's answer gets in verify mode when
// the framework (or a second read of Nomad) answered otherwise: a berth
// bug, summarized by what disagreed, detailed by each difference.
func shortcutBug(summary string, diffs []string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "berth bug: " + summary,
		Detail:   strings.Join(diffs, "\n"),
	}
}
