package volume

import (
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
)

// sameSettings reports whether plan and state (models of one type) agree
// on every attribute the user sets, walking the model's fields (so one
// added later is compared without being listed); computed names those
// only Nomad sets.
func sameSettings(plan, state any, computed []string) bool {
	pv, sv := reflect.ValueOf(plan), reflect.ValueOf(state)
	t := pv.Type()
	for i := range t.NumField() {
		if slices.Contains(computed, t.Field(i).Tag.Get("tfsdk")) {
			continue
		}
		a, okA := pv.Field(i).Interface().(attr.Value)
		b, okB := sv.Field(i).Interface().(attr.Value)
		if !okA || !okB || !a.Equal(b) {
			return false
		}
	}
	return true
}
