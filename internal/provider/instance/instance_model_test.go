package instance

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// TestSpecModelRoundTrip: every tagged field of the domain structs survives
// domain -> Terraform model -> domain, so a new field cannot be dropped by
// the generic conversions.
func TestSpecModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	count := 2
	want := instance.Normalize(instance.Spec{
		Name: "shop", Namespace: "default", NodePool: "default", Datacenters: []string{"dc1"}, Replicas: &count,
		Running: true, NetworkMode: "bridge", Meta: map[string]string{"team": "a"},
		Services: map[string]instance.Service{
			"web": {
				Role: instance.RoleMain, Driver: "docker", Image: "nginx", Command: "/bin/x", Args: []string{"a", ""},
				Config: map[string]any{"shm_size": float64(64), "ports": []any{"http"}}, Env: map[string]string{"A": ""},
				CPU: 250, Memory: 256, MemoryMax: 512, KillSignal: "SIGTERM",
				Ports:  map[string]instance.Port{"http": {To: 8080}, "m": {Static: 29090}},
				Mounts: []instance.Mount{{Volume: "data", Destination: "/d", ReadOnly: true}, {Volume: "data", Destination: "/e"}},
				Check:  &instance.Check{Type: "http", Port: "http", Path: "/h", Interval: 10 * time.Second, Timeout: 2 * time.Second},
			},
			"init": {Role: instance.RoleInit, Driver: "exec", CPU: 100, Memory: 300},
		},
		Volumes: map[string]instance.VolumeClaim{
			"data": {Source: "vol", ReadOnly: true, AccessMode: "single-node-reader-only", AttachmentMode: "file-system"},
			"db":   {Type: "csi", Source: "db", PerAlloc: true, AccessMode: "multi-node-multi-writer", AttachmentMode: "block-device"},
		},
		Update: instance.Update{MaxParallel: 0, MinHealthyTime: time.Second, HealthyDeadline: time.Minute, ProgressDeadline: 0, AutoRevert: true, Canary: 1},
		Policies: &instance.Policies{
			Priority: acctest.Ptr(70),
			Restart: &instance.Restart{Attempts: acctest.Ptr(0), Interval: acctest.Ptr(time.Hour), Delay: acctest.Ptr(time.Duration(0)), Mode: acctest.Ptr("fail"),
				RenderTemplates: acctest.Ptr(false)},
			Reschedule: &instance.Reschedule{Attempts: acctest.Ptr(1), Interval: acctest.Ptr(time.Hour), Delay: acctest.Ptr(time.Minute),
				DelayFunction: acctest.Ptr("constant"), MaxDelay: acctest.Ptr(time.Duration(0)), Unlimited: acctest.Ptr(false)},
			Migrate:       &instance.Migrate{MaxParallel: acctest.Ptr(0), HealthCheck: acctest.Ptr("checks"), MinHealthyTime: acctest.Ptr(time.Second), HealthyDeadline: acctest.Ptr(time.Minute)},
			EphemeralDisk: &instance.EphemeralDisk{SizeMB: acctest.Ptr(500), Sticky: acctest.Ptr(false), Migrate: acctest.Ptr(true)},
		},
	})
	web := want.Services["web"]
	web.Policies = &instance.TaskPolicies{KillTimeout: acctest.Ptr(time.Duration(0)), ShutdownDelay: acctest.Ptr(2 * time.Second), User: "nobody",
		Logs: &instance.Logs{MaxFiles: acctest.Ptr(1), MaxFileSizeMB: acctest.Ptr(0)}, Meta: map[string]string{"k": ""}}
	want.Services["web"] = web
	m := instanceModel{Datacenters: types.ListNull(types.StringType)}
	if diags := specToModel(ctx, want, &m); diags.HasError() {
		t.Fatalf("specToModel: %v", diags)
	}
	var svc map[string]types.Object
	m.Services.ElementsAs(ctx, &svc, false)
	if got := svc["init"].Attributes()["kill_signal"]; !got.IsNull() {
		t.Errorf("unset kill_signal = %v, want null", got)
	}
	if got := svc["web"].Attributes()["memory_max"]; got.IsNull() {
		t.Errorf("memory_max 512 read as null")
	}
	// A set zero is a value, not "unset".
	if got := svc["web"].Attributes()["policies"].(types.Object).Attributes()["kill_timeout"]; got.IsNull() {
		t.Errorf("kill_timeout 0s read as null")
	}
	if got := svc["init"].Attributes()["policies"]; !got.IsNull() {
		t.Errorf("unset policies = %v, want null", got)
	}
	if d := m.Policies.Attributes()["restart"].(types.Object).Attributes()["delay"]; !d.Equal(shared.DurationValue(0)) {
		t.Errorf("restart delay 0 = %v", d)
	}
	got, diags, err := m.toSpec(ctx)
	if err != nil || diags.HasError() {
		t.Fatalf("toSpec: %v %v", err, diags)
	}
	if got = instance.Normalize(got); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs: %v", instance.Diff(want, got))
	}
}

// TestToSpecTakesSchemaDefaults: attributes left out of configuration read
// as the schema's defaults, and an unknown nested value stops the conversion.
func TestToSpecTakesSchemaDefaults(t *testing.T) {
	ctx := context.Background()
	svc := instance.Service{Driver: "exec"}
	m := instanceModel{}
	specToModel(ctx, instance.Spec{Services: map[string]instance.Service{"a": svc}}, &m)
	m.Update = types.ObjectNull(instanceAttrType("update").(types.ObjectType).AttrTypes)
	// cpu, memory and role are 0/"" in svc, so they were written as values;
	// null them the way configuration leaves them out.
	obj := m.Services.Elements()["a"].(types.Object)
	attrs := obj.Attributes()
	attrs["cpu"], attrs["memory"], attrs["role"] = types.Int64Null(), types.Int64Null(), types.StringNull()
	m.Services = types.MapValueMust(m.Services.ElementType(ctx), map[string]attr.Value{"a": types.ObjectValueMust(obj.AttributeTypes(ctx), attrs)})
	s, diags, err := m.toSpec(ctx)
	if err != nil || diags.HasError() {
		t.Fatalf("toSpec: %v %v", err, diags)
	}
	if a := s.Services["a"]; a.CPU != defaultCPU || a.Memory != defaultMemory || a.Role != instance.RoleMain {
		t.Errorf("service defaults = %+v", a)
	}
	if s.Update != instance.DefaultUpdate() {
		t.Errorf("update = %+v, want Nomad's defaults", s.Update)
	}
	attrs["kill_signal"] = types.StringUnknown()
	m.Services = types.MapValueMust(m.Services.ElementType(ctx), map[string]attr.Value{"a": types.ObjectValueMust(obj.AttributeTypes(ctx), attrs)})
	if _, _, err := m.toSpec(ctx); err != shared.ErrUnknown {
		t.Errorf("unknown kill_signal: err = %v, want errUnknown", err)
	}
}

// TestResolveUnknowns: after an apply, the policy fields the plan left
// unknown take Nomad's values, known ones stay, and without a read they
// become null.
func TestResolveUnknowns(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	pol := writeAttr[types.Object](ctx, "policies", &instance.Policies{Restart: &instance.Restart{Attempts: acctest.Ptr(2), Interval: acctest.Ptr(30 * time.Minute),
		Delay: acctest.Ptr(15 * time.Second), Mode: acctest.Ptr("fail"), RenderTemplates: acctest.Ptr(false)}}, &diags)
	live := pol.Attributes()["restart"].(types.Object)
	planned := live.Attributes()
	planned["attempts"] = types.Int64Value(0)
	planned["interval"] = timetypes.NewGoDurationUnknown()
	planned["mode"] = types.StringUnknown()
	plan := types.ObjectValueMust(live.AttributeTypes(ctx), planned)

	got := resolveUnknowns(ctx, plan, live).(types.Object).Attributes()
	if !got["attempts"].Equal(types.Int64Value(0)) || !got["interval"].Equal(shared.DurationValue(30*time.Minute)) || !got["mode"].Equal(types.StringValue("fail")) {
		t.Errorf("resolved = %v", got)
	}
	got = resolveUnknowns(ctx, plan, nil).(types.Object).Attributes()
	if !got["interval"].IsNull() || !got["mode"].IsNull() || !got["attempts"].Equal(types.Int64Value(0)) {
		t.Errorf("nulled = %v", got)
	}
	if diags.HasError() {
		t.Fatal(diags)
	}
}

// TestChargeOfEphemeralDisk: a node reservation is charged the instance's
// ephemeral_disk.size per allocation, Nomad's default when unset.
func TestChargeOfEphemeralDisk(t *testing.T) {
	s := instance.Spec{Services: map[string]instance.Service{"a": {CPU: 100, Memory: 64}, "b": {CPU: 50, Memory: 32}}}
	if got, want := workflow.InstanceCharge(s, 2), (capacity.Resources{CPU: 300, MemoryMB: 192, DiskMB: 600}); got != want {
		t.Errorf("default disk: %+v, want %+v", got, want)
	}
	s.Policies = &instance.Policies{EphemeralDisk: &instance.EphemeralDisk{Sticky: acctest.Ptr(true)}}
	if got := workflow.InstanceCharge(s, 2).DiskMB; got != 600 {
		t.Errorf("size unset: disk %d, want 600", got)
	}
	s.Policies.EphemeralDisk.SizeMB = acctest.Ptr(50)
	if got := workflow.InstanceCharge(s, 3).DiskMB; got != 150 {
		t.Errorf("size 50: disk %d, want 150", got)
	}
}
