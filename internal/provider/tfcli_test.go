package provider_test

import (
	"fmt"

	tfjson "github.com/hashicorp/terraform-json"
)

// stateAttr reads a string attribute of a resource in state.
func stateAttr(r *tfjson.StateResource, key string) string {
	if r == nil {
		return ""
	}
	switch v := r.AttributeValues[key].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprint(v)
	}
}
