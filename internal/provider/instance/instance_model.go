package instance

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// instanceModel is the berth_instance resource.
type instanceModel struct {
	ID               types.String   `tfsdk:"id"`
	Name             types.String   `tfsdk:"name"`
	Namespace        types.String   `tfsdk:"namespace"`
	Type             types.String   `tfsdk:"type"`
	Datacenters      types.List     `tfsdk:"datacenters"`
	NodePool         types.String   `tfsdk:"node_pool"`
	NodeReservation  types.String   `tfsdk:"node_reservation"`
	Replicas         types.Int64    `tfsdk:"replicas"`
	Running          types.Bool     `tfsdk:"running"`
	NetworkMode      types.String   `tfsdk:"network_mode"`
	Meta             types.Map      `tfsdk:"meta"`
	Services         types.Map      `tfsdk:"services"`
	Volumes          types.Map      `tfsdk:"volumes"`
	Update           types.Object   `tfsdk:"update"`
	Group            types.String   `tfsdk:"group"`
	Placement        types.Object   `tfsdk:"placement"`
	RestartTriggers  types.Map      `tfsdk:"restart_triggers"`
	PromoteTrigger   types.String   `tfsdk:"promote_trigger"`
	WaitForHealthy   types.Bool     `tfsdk:"wait_for_healthy"`
	PurgeOnDestroy   types.Bool     `tfsdk:"purge_on_destroy"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
	JobVersion       types.Int64    `tfsdk:"job_version"`
	JobModifyIndex   types.Int64    `tfsdk:"job_modify_index"`
	DeploymentID     types.String   `tfsdk:"deployment_id"`
	DeploymentStatus types.String   `tfsdk:"deployment_status"`
	// Policies (instance_schema_policies.go); null = Nomad's defaults.
	Policies types.Object `tfsdk:"policies"`
}

// instanceAttributes is the resource schema's attributes: the conversions
// below follow it (defaults, types, null rules; see model_reflect.go), so no
// attribute type or service field is listed twice.
var instanceAttributes = sync.OnceValue(func() map[string]schema.Attribute {
	return Schema(context.Background()).Attributes
})

// instanceAttrType is the Terraform type of a top-level attribute.
func instanceAttrType(name string) attr.Type { return instanceAttributes()[name].GetType() }

// readAttr converts the value v of the top-level attribute name into *dst,
// a domain value with `tf` tags; errUnknown when a value is not known yet.
func readAttr(ctx context.Context, name string, v attr.Value, dst any, diags *diag.Diagnostics) error {
	return shared.TfToGo(ctx, path.Root(name), instanceAttributes()[name], v, reflect.ValueOf(dst).Elem(), diags)
}

// writeAttr converts src into a value of the top-level attribute name.
func writeAttr[T attr.Value](ctx context.Context, name string, src any, diags *diag.Diagnostics) T {
	v, d := shared.GoToTF(ctx, instanceAttributes()[name], reflect.ValueOf(src))
	diags.Append(d...)
	out, ok := v.(T)
	if !ok && !d.HasError() {
		diags.AddAttributeError(path.Root(name), "Provider bug", fmt.Sprintf("attribute %s converted to %T", name, v))
	}
	return out
}

// toSpec converts a configuration, plan or state into an instance.Spec.
// It returns errUnknown when any value it needs is unknown.
func (m *instanceModel) toSpec(ctx context.Context) (instance.Spec, diag.Diagnostics, error) {
	var diags diag.Diagnostics
	s := instance.Spec{
		Name:        m.Name.ValueString(),
		Namespace:   m.Namespace.ValueString(),
		Type:        m.Type.ValueString(),
		NodePool:    m.NodePool.ValueString(),
		Running:     m.Running.IsNull() || m.Running.ValueBool(),
		NetworkMode: m.NetworkMode.ValueString(),
		Group:       m.Group.ValueString(),
	}
	// Nested attributes are converted by readAttr below, which returns
	// errUnknown itself, except for an unknown optional sub-field Nomad
	// fills in (a policy field left out of the configuration), which is unset.
	if shared.AnyUnknown(m.Name, m.Type, m.Datacenters, m.Running, m.NetworkMode, m.Meta, m.NodeReservation, m.Group) {
		return s, diags, shared.ErrUnknown
	}
	if !m.NodeReservation.IsNull() {
		// The attribute's validator has already refused a malformed ID, at
		// validate time; reporting it here too would be a second error.
		node, _, _ := nomadclient.ParseNodeReservationID(m.NodeReservation.ValueString())
		s.PinNode = node
	}
	// An unknown count is an unmanaged one about to be read from Nomad.
	if !m.Replicas.IsNull() && !m.Replicas.IsUnknown() {
		c := int(m.Replicas.ValueInt64())
		s.Replicas = &c
	}
	diags.Append(m.Datacenters.ElementsAs(ctx, &s.Datacenters, false)...)
	diags.Append(m.Meta.ElementsAs(ctx, &s.Meta, false)...)

	// Null attributes take the schema's defaults (update's are Nomad's).
	for _, f := range []struct {
		name string
		v    attr.Value
		dst  any
	}{{"update", m.Update, &s.Update}, {"volumes", m.Volumes, &s.Volumes}, {"services", m.Services, &s.Services},
		{"policies", m.Policies, &s.Policies}, {"placement", m.Placement, &s.Placement}} {
		if err := readAttr(ctx, f.name, f.v, f.dst, &diags); err != nil {
			return s, diags, err
		}
	}
	return s, diags, nil
}

// specToModel writes the managed attributes of s into m, using null for
// values that are empty, which is how an unset optional attribute reads.
func specToModel(ctx context.Context, s instance.Spec, m *instanceModel) diag.Diagnostics {
	var diags diag.Diagnostics
	m.Name = types.StringValue(s.Name)
	m.Namespace = types.StringValue(s.Namespace)
	m.NodePool = types.StringValue(s.NodePool)
	m.Running = types.BoolValue(s.Running)
	m.NetworkMode = types.StringValue(s.NetworkMode)
	if s.Replicas != nil {
		m.Replicas = types.Int64Value(int64(*s.Replicas))
	}
	m.Datacenters = shared.ListOf(ctx, s.Datacenters, &diags)
	m.Meta = shared.MapOrNull(ctx, s.Meta, &diags)
	m.Update = writeAttr[types.Object](ctx, "update", instance.ConfiguredUpdate(s), &diags)
	m.Services = writeAttr[types.Map](ctx, "services", s.Services, &diags)
	m.Policies = writeAttr[types.Object](ctx, "policies", s.Policies, &diags)
	claims := make(map[string]instance.VolumeClaim, len(s.Volumes))
	for key, c := range s.Volumes {
		// Defaults read back as null, the way an unset attribute reads.
		if c.AccessMode == instance.DefaultVolumeAccessModeFor(c.ReadOnly) {
			c.AccessMode = ""
		}
		if c.AttachmentMode == instance.DefaultVolumeAttachmentMode {
			c.AttachmentMode = ""
		}
		claims[key] = c
	}
	m.Volumes = writeAttr[types.Map](ctx, "volumes", claims, &diags)
	typeToModel(ctx, s, m)
	writePlacement(ctx, s, m, &diags)
	return diags
}

// setComputed fills the attributes Nomad decides, from the job alone: what
// its allocations do is the berth_instance data source's (status,
// allocations), so a refresh is one read.
func setComputed(m *instanceModel, job *nomadclient.Job) {
	m.ID = types.StringValue(instanceID(job.Namespace(), job.ID()))
	m.JobVersion = types.Int64Value(int64(job.Version()))
	m.JobModifyIndex = types.Int64Value(int64(job.ModifyIndex()))
	if m.DeploymentID.IsNull() || m.DeploymentID.IsUnknown() {
		m.DeploymentID = types.StringValue("")
	}
	if m.DeploymentStatus.IsNull() || m.DeploymentStatus.IsUnknown() {
		m.DeploymentStatus = types.StringValue("")
	}
}

func instanceID(namespace, name string) string { return namespace + "/" + name }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// plannedCharge is what m charges its node reservation: a new instance
// starts with 1 replica unless replicas says otherwise. ok is false while
// a value it needs is unknown.
func plannedCharge(ctx context.Context, m *instanceModel) (capacity.Resources, bool) {
	if m.Name.IsUnknown() {
		return capacity.Resources{}, false
	}
	spec, d, err := m.toSpec(ctx)
	if err != nil || d.HasError() {
		return capacity.Resources{}, false
	}
	count := 1
	if spec.Replicas != nil {
		count = *spec.Replicas
	}
	return workflow.InstanceCharge(spec, count), true
}

// fieldPath turns an instance.FieldError path (attribute names, map keys
// after map attributes, list indexes, set elements as domain structs) into a Terraform path, telling map keys
// from attribute names by the instance schema.
func fieldPath(elems []any) path.Path {
	var p path.Path
	attrs := instanceAttributes()
	var collection schema.Attribute // the map or list attribute just named
	for i, e := range elems {
		if n, ok := e.(int); ok {
			p = p.AtListIndex(n)
			attrs, collection = shared.NestedAttributes(collection), nil
			continue
		}
		s, isName := e.(string)
		if !isName && collection != nil {
			// A set element, named by its value: the domain struct as
			// configured converts to the element Terraform holds.
			v, diags := shared.GoToTF(context.Background(), shared.ElementAttribute(collection), reflect.ValueOf(e))
			if diags.HasError() {
				return p // the set itself, rather than no path
			}
			p = p.AtSetValue(v)
			attrs, collection = shared.NestedAttributes(collection), nil
			continue
		}
		switch {
		case collection != nil:
			p = p.AtMapKey(s)
			attrs, collection = shared.NestedAttributes(collection), nil
			continue
		case i == 0:
			p = path.Root(s)
		default:
			p = p.AtName(s)
		}
		switch a := attrs[s].(type) {
		case schema.MapAttribute, schema.MapNestedAttribute, schema.ListAttribute, schema.ListNestedAttribute, schema.SetNestedAttribute:
			collection = a
		default:
			attrs = shared.NestedAttributes(a)
		}
	}
	return p
}
