// Package taskconfig reads values out of Nomad task driver config, which
// holds Go types when a job is built locally and JSON-decoded types
// ([]any, float64) when it comes back from the API.
package taskconfig

import "slices"

// StringList accepts a list of strings as it appears in driver config:
// []string when built locally, []any after a JSON round trip. It reports
// false for anything else, including a list with a non-string element.
func StringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l), true
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	default:
		return nil, false
	}
}
