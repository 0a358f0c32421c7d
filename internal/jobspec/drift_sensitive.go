package jobspec

import (
	"reflect"
	"slices"

	"github.com/hashicorp/nomad/api"
)

// Drift never shows what may be a credential: an artifact's go-getter
// options (a git sshkey, cloud keys) and headers (an Authorization value).
// They are compared by value, and shown by their keys alone.

const (
	sensitiveValue   = "(sensitive value)"
	sensitiveChanged = "(a sensitive value differs)"
)

// sensitiveFields lists, by API type, the fields whose values drift hides.
var sensitiveFields = map[reflect.Type][]string{
	reflect.TypeFor[api.TaskArtifact](): {"GetterOptions", "GetterHeaders"},
}

func isSensitive(t reflect.Type, field string) bool {
	return slices.Contains(sensitiveFields[t], field)
}

// hideValues is m with every value replaced by sensitiveValue; nil for nil.
func hideValues(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = sensitiveValue
	}
	return out
}

// hideSensitive returns v with the values of sensitiveFields hidden, for
// show: a sensitive map itself, or a list of artifacts compared whole.
func hideSensitive(v reflect.Value, field bool) reflect.Value {
	m, isMap := v.Interface().(map[string]string)
	arts, isArtifacts := v.Interface().([]*api.TaskArtifact)
	switch {
	case field && isMap:
		return reflect.ValueOf(hideValues(m))
	case isArtifacts && arts != nil:
		out := make([]*api.TaskArtifact, len(arts))
		for i, a := range arts {
			if a != nil {
				c := *a
				c.GetterOptions, c.GetterHeaders = hideValues(a.GetterOptions), hideValues(a.GetterHeaders)
				out[i] = &c
			}
		}
		return reflect.ValueOf(out)
	}
	return v
}
