package node

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func TestNodePoolModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	meta := types.MapValueMust(types.StringType, map[string]attr.Value{"team": types.StringValue("a")})
	m := nodePoolModel{Name: types.StringValue("gpu"), Description: types.StringValue("d"), Meta: meta,
		SchedulerAlgorithm: types.StringValue("spread"), MemoryOversubscription: types.BoolValue(false)}
	p := m.toNodePool(ctx, &diags)
	if p.Name != "gpu" || p.Description != "d" || p.Meta["team"] != "a" || p.SchedulerAlgorithm != "spread" ||
		p.MemoryOversubscription == nil || *p.MemoryOversubscription {
		t.Errorf("toNodePool %+v", p)
	}
	var back nodePoolModel
	back.fromNodePool(ctx, &p, &diags)
	if !back.Meta.Equal(meta) || back.ID.ValueString() != "gpu" || back.SchedulerAlgorithm.ValueString() != "spread" ||
		back.MemoryOversubscription.IsNull() || back.MemoryOversubscription.ValueBool() {
		t.Errorf("fromNodePool %+v", back)
	}
	if diags.HasError() {
		t.Fatal(diags)
	}
}

// Nomad does not tell "" from unset: a configuration that wrote "" or {}
// keeps it, one that wrote nothing reads null.
func TestNodePoolModelKeepsEmpty(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	empty := nodePoolModel{Description: types.StringValue(""), Meta: types.MapValueMust(types.StringType, map[string]attr.Value{})}
	empty.fromNodePool(ctx, &nomadclient.NodePool{Name: "p"}, &diags)
	if empty.Description.IsNull() || empty.Meta.IsNull() {
		t.Errorf("\"\" and {} must be kept: %+v", empty)
	}
	unset := nodePoolModel{Description: types.StringNull(), Meta: types.MapNull(types.StringType)}
	unset.fromNodePool(ctx, &nomadclient.NodePool{Name: "p"}, &diags)
	if !unset.Description.IsNull() || !unset.Meta.IsNull() || !unset.SchedulerAlgorithm.IsNull() || !unset.MemoryOversubscription.IsNull() {
		t.Errorf("unset must read null: %+v", unset)
	}
	drifted := nodePoolModel{Description: types.StringValue("mine")}
	drifted.fromNodePool(ctx, &nomadclient.NodePool{Name: "p"}, &diags)
	if !drifted.Description.IsNull() {
		t.Errorf("a description removed in Nomad must read null (drift): %v", drifted.Description)
	}
}

func TestNodePoolSchedulerConfigPath(t *testing.T) {
	both := nodePoolModel{SchedulerAlgorithm: types.StringValue("spread"), MemoryOversubscription: types.BoolValue(true)}
	if got := both.schedulerConfigPath(); !got.Equal(path.Root("scheduler_algorithm")) {
		t.Errorf("both set: %s", got)
	}
	memory := nodePoolModel{SchedulerAlgorithm: types.StringNull(), MemoryOversubscription: types.BoolValue(true)}
	if got := memory.schedulerConfigPath(); !got.Equal(path.Root("memory_oversubscription")) {
		t.Errorf("memory only: %s", got)
	}
}

func TestNodePoolInUseDetail(t *testing.T) {
	d := nodePoolInUseDetail(&nomadclient.NodePoolInUseError{Name: "gpu", Err: errors.New(`node pool "gpu" has nodes in regions: [global]`),
		Nodes: []string{"worker-1"}, Jobs: []string{"default/web"}})
	for _, want := range []string{`node pool "gpu"`, "has nodes in regions", "worker-1", "default/web", "destroy again"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail does not say %q:\n%s", want, d)
		}
	}
}
