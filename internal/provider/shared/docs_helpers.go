package shared

import (
	"strings"
)

// BacktickList renders enum values for MarkdownDescription, so the docs
// list exactly what the validator accepts.
func BacktickList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "`" + v + "`"
	}
	return strings.Join(quoted, ", ")
}
