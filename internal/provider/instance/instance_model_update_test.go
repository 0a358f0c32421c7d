package instance

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// TestUpdateStrategyInState: a job read from Nomad goes into state with
// health_check, stagger and auto_promote null when they hold what null
// means, and as values otherwise, false included.
func TestUpdateStrategyInState(t *testing.T) {
	ctx := context.Background()
	svc := map[string]instance.Service{"a": {Driver: "exec", CPU: 100, Memory: 300}}
	tests := []struct {
		name string
		u    instance.Update
		want map[string]any // attribute -> nil for null, or its value
	}{
		{"defaults read as null", func() instance.Update {
			u := instance.DefaultUpdate()
			u.HealthCheck, u.Stagger, u.AutoPromote = acctest.Ptr("task_states"), acctest.Ptr(instance.DefaultStagger), acctest.Ptr(false)
			return u
		}(), map[string]any{"health_check": nil, "stagger": nil, "auto_promote": nil}},
		{"set values", func() instance.Update {
			u := instance.DefaultUpdate()
			u.Canary = 1
			u.HealthCheck, u.Stagger, u.AutoPromote = acctest.Ptr("manual"), acctest.Ptr(time.Minute), acctest.Ptr(false)
			return u
		}(), map[string]any{"health_check": "manual", "stagger": "1m", "auto_promote": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m instanceModel
			if d := specToModel(ctx, instance.Spec{Name: "x", Services: svc, Update: tt.u}, &m); d.HasError() {
				t.Fatalf("specToModel: %v", d)
			}
			attrs := m.Update.Attributes()
			for name, want := range tt.want {
				got := attrs[name]
				if want == nil {
					if !got.IsNull() {
						t.Errorf("%s = %v, want null", name, got)
					}
					continue
				}
				if s := valueText(got); s != want {
					t.Errorf("%s = %v, want %v", name, s, want)
				}
			}
			back, d, err := m.toSpec(ctx)
			if err != nil || d.HasError() {
				t.Fatalf("toSpec: %v %v", err, d)
			}
			if diff := instance.Diff(instance.Spec{Name: "x", Services: svc, Update: tt.u}, back); len(diff) > 0 {
				t.Errorf("round trip differs: %q", diff)
			}
		})
	}
}

func valueText(v attr.Value) any {
	switch v := v.(type) {
	case types.Bool:
		return v.ValueBool()
	case types.String:
		return v.ValueString()
	}
	if s, ok := v.(interface{ ValueString() string }); ok {
		return s.ValueString()
	}
	return v.String()
}
