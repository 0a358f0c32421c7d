package job

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestReadRepeats(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"format": tftypes.String}}
	state := func(format string) tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{"format": tftypes.NewValue(tftypes.String, format)})
	}
	private := func(keys map[string][]byte) []byte {
		b, err := json.Marshal(keys)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	kept := private(map[string][]byte{parseKey: []byte(`{"key":"k","gz":"x"}`)})
	for name, c := range map[string]struct {
		state   tftypes.Value
		private []byte
		want    bool
	}{
		"JSON, no private state":            {state("json"), nil, true},
		"HCL2 with its parse kept":          {state("hcl2"), kept, true},
		"HCL2 without a kept parse":         {state("hcl2"), private(map[string][]byte{"other": []byte("1")}), false},
		"HCL2, no private state":            {state("hcl2"), nil, false},
		"HCL2, private state not JSON":      {state("hcl2"), []byte("{"), false},
		"no format (an object of no shape)": {tftypes.NewValue(tftypes.String, "x"), kept, false},
	} {
		if got := ReadRepeats(c.state, c.private); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
