package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// instanceModel is the berth_instance resource.
type instanceModel struct {
	ID               types.String   `tfsdk:"id"`
	Name             types.String   `tfsdk:"name"`
	Namespace        types.String   `tfsdk:"namespace"`
	Datacenters      types.List     `tfsdk:"datacenters"`
	NodePool         types.String   `tfsdk:"node_pool"`
	NodeReservation  types.String   `tfsdk:"node_reservation"`
	Count            types.Int64    `tfsdk:"replicas"`
	Running          types.Bool     `tfsdk:"running"`
	NetworkMode      types.String   `tfsdk:"network_mode"`
	Meta             types.Map      `tfsdk:"meta"`
	Services         types.Map      `tfsdk:"services"`
	Volumes          types.Map      `tfsdk:"volumes"`
	Update           types.Object   `tfsdk:"update"`
	RestartTriggers  types.Map      `tfsdk:"restart_triggers"`
	WaitForHealthy   types.Bool     `tfsdk:"wait_for_healthy"`
	PurgeOnDestroy   types.Bool     `tfsdk:"purge_on_destroy"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
	JobVersion       types.Int64    `tfsdk:"job_version"`
	JobModifyIndex   types.Int64    `tfsdk:"job_modify_index"`
	Status           types.String   `tfsdk:"status"`
	DeploymentID     types.String   `tfsdk:"deployment_id"`
	DeploymentStatus types.String   `tfsdk:"deployment_status"`
	Allocations      types.List     `tfsdk:"allocations"`
}

type serviceModel struct {
	Role      types.String         `tfsdk:"role"`
	Driver    types.String         `tfsdk:"driver"`
	Image     types.String         `tfsdk:"image"`
	Command   types.String         `tfsdk:"command"`
	Args      types.List           `tfsdk:"args"`
	Config    jsontypes.Normalized `tfsdk:"config"`
	Env       types.Map            `tfsdk:"env"`
	CPU       types.Int64          `tfsdk:"cpu"`
	Memory    types.Int64          `tfsdk:"memory"`
	MemoryMax types.Int64          `tfsdk:"memory_max"`
	Ports     types.Map            `tfsdk:"ports"`
	Check     types.Object         `tfsdk:"check"`
	Mounts    types.List           `tfsdk:"mounts"`
}

type mountModel struct {
	Volume      types.String `tfsdk:"volume"`
	Destination types.String `tfsdk:"destination"`
	ReadOnly    types.Bool   `tfsdk:"read_only"`
}

type volumeClaimModel struct {
	Volume         types.String `tfsdk:"volume"`
	ReadOnly       types.Bool   `tfsdk:"read_only"`
	AccessMode     types.String `tfsdk:"access_mode"`
	AttachmentMode types.String `tfsdk:"attachment_mode"`
}

type portModel struct {
	To     types.Int64 `tfsdk:"to"`
	Static types.Int64 `tfsdk:"static"`
}

type checkModel struct {
	Type     types.String         `tfsdk:"type"`
	Port     types.String         `tfsdk:"port"`
	Path     types.String         `tfsdk:"path"`
	Interval timetypes.GoDuration `tfsdk:"interval"`
	Timeout  timetypes.GoDuration `tfsdk:"timeout"`
}

type updateModel struct {
	MaxParallel      types.Int64          `tfsdk:"max_parallel"`
	MinHealthyTime   timetypes.GoDuration `tfsdk:"min_healthy_time"`
	HealthyDeadline  timetypes.GoDuration `tfsdk:"healthy_deadline"`
	ProgressDeadline timetypes.GoDuration `tfsdk:"progress_deadline"`
	AutoRevert       types.Bool           `tfsdk:"auto_revert"`
	Canary           types.Int64          `tfsdk:"canary"`
}

// errUnknown marks a spec that could not be built because a value is not
// known yet (plan time); callers skip the checks that need it.
var errUnknown = fmt.Errorf("value not known yet")

// toSpec converts a configuration, plan or state into an instance.Spec.
// It returns errUnknown when any value it needs is unknown.
func (m *instanceModel) toSpec(ctx context.Context) (instance.Spec, diag.Diagnostics, error) {
	var diags diag.Diagnostics
	s := instance.Spec{
		Name:        m.Name.ValueString(),
		Namespace:   m.Namespace.ValueString(),
		NodePool:    m.NodePool.ValueString(),
		Running:     m.Running.IsNull() || m.Running.ValueBool(),
		NetworkMode: m.NetworkMode.ValueString(),
	}
	if anyUnknown(m.Name, m.Datacenters, m.Running, m.NetworkMode, m.Meta, m.Services, m.Update, m.Volumes, m.NodeReservation) {
		return s, diags, errUnknown
	}
	if !m.NodeReservation.IsNull() {
		// The attribute's validator has already refused a malformed ID, at
		// validate time; reporting it here too would be a second error.
		node, _, _ := nomadclient.ParseNodeReservationID(m.NodeReservation.ValueString())
		s.PinNode = node
	}
	// An unknown count is an unmanaged one about to be read from Nomad.
	if !m.Count.IsNull() && !m.Count.IsUnknown() {
		c := int(m.Count.ValueInt64())
		s.Count = &c
	}
	diags.Append(m.Datacenters.ElementsAs(ctx, &s.Datacenters, false)...)
	diags.Append(m.Meta.ElementsAs(ctx, &s.Meta, false)...)

	s.Update = instance.DefaultUpdate()
	if !m.Update.IsNull() {
		var u updateModel
		diags.Append(m.Update.As(ctx, &u, basetypes.ObjectAsOptions{})...)
		if anyUnknown(u.MaxParallel, u.MinHealthyTime, u.HealthyDeadline, u.ProgressDeadline, u.AutoRevert, u.Canary) {
			return s, diags, errUnknown
		}
		// Attributes left out of the block are null in configuration (their
		// defaults only appear in the plan): read them as the defaults.
		def := instance.DefaultUpdate()
		if !u.MaxParallel.IsNull() {
			s.Update.MaxParallel = int(u.MaxParallel.ValueInt64())
		}
		s.Update.AutoRevert = u.AutoRevert.ValueBool()
		s.Update.Canary = int(u.Canary.ValueInt64())
		s.Update.MinHealthyTime = durationOr(u.MinHealthyTime, def.MinHealthyTime)
		s.Update.HealthyDeadline = durationOr(u.HealthyDeadline, def.HealthyDeadline)
		s.Update.ProgressDeadline = durationOr(u.ProgressDeadline, def.ProgressDeadline)
	}

	if !m.Volumes.IsNull() {
		var claims map[string]volumeClaimModel
		diags.Append(m.Volumes.ElementsAs(ctx, &claims, false)...)
		s.Volumes = make(map[string]instance.VolumeClaim, len(claims))
		for key, c := range claims {
			if anyUnknown(c.Volume, c.ReadOnly, c.AccessMode, c.AttachmentMode) {
				return s, diags, errUnknown
			}
			s.Volumes[key] = instance.VolumeClaim{
				Source: c.Volume.ValueString(), ReadOnly: c.ReadOnly.ValueBool(),
				AccessMode: c.AccessMode.ValueString(), AttachmentMode: c.AttachmentMode.ValueString(),
			}
		}
	}

	var services map[string]serviceModel
	diags.Append(m.Services.ElementsAs(ctx, &services, false)...)
	if diags.HasError() {
		return s, diags, nil
	}
	s.Services = make(map[string]instance.Service, len(services))
	for name, sm := range services {
		svc, err := sm.toService(ctx, path.Root("services").AtMapKey(name), &diags)
		if err != nil {
			return s, diags, err
		}
		s.Services[name] = svc
	}
	return s, diags, nil
}

func (sm serviceModel) toService(ctx context.Context, at path.Path, diags *diag.Diagnostics) (instance.Service, error) {
	if anyUnknown(sm.Role, sm.Driver, sm.Image, sm.Command, sm.Args, sm.Config, sm.Env, sm.CPU, sm.Memory, sm.MemoryMax, sm.Ports, sm.Check, sm.Mounts) {
		return instance.Service{}, errUnknown
	}
	svc := instance.Service{
		Role: instance.Role(sm.Role.ValueString()), Driver: sm.Driver.ValueString(),
		Image: sm.Image.ValueString(), Command: sm.Command.ValueString(),
		CPU: int(sm.CPU.ValueInt64()), Memory: int(sm.Memory.ValueInt64()), MemoryMax: int(sm.MemoryMax.ValueInt64()),
	}
	if sm.CPU.IsNull() {
		svc.CPU = defaultCPU
	}
	if sm.Memory.IsNull() {
		svc.Memory = defaultMemory
	}
	diags.Append(sm.Args.ElementsAs(ctx, &svc.Args, false)...)
	diags.Append(sm.Env.ElementsAs(ctx, &svc.Env, false)...)
	if !sm.Config.IsNull() {
		if err := json.Unmarshal([]byte(sm.Config.ValueString()), &svc.Config); err != nil {
			diags.AddAttributeError(at.AtName("config"), "Invalid driver config",
				"config must be a JSON object, for example jsonencode({ ports = [\"http\"] }): "+err.Error())
		}
	}
	if !sm.Ports.IsNull() {
		var ports map[string]portModel
		diags.Append(sm.Ports.ElementsAs(ctx, &ports, false)...)
		svc.Ports = make(map[string]instance.Port, len(ports))
		for label, p := range ports {
			if anyUnknown(p.To, p.Static) {
				return svc, errUnknown
			}
			svc.Ports[label] = instance.Port{To: int(p.To.ValueInt64()), Static: int(p.Static.ValueInt64())}
		}
	}
	if !sm.Mounts.IsNull() {
		var mounts []mountModel
		diags.Append(sm.Mounts.ElementsAs(ctx, &mounts, false)...)
		for _, mt := range mounts {
			if anyUnknown(mt.Volume, mt.Destination, mt.ReadOnly) {
				return svc, errUnknown
			}
			svc.Mounts = append(svc.Mounts, instance.Mount{
				Volume: mt.Volume.ValueString(), Destination: mt.Destination.ValueString(), ReadOnly: mt.ReadOnly.ValueBool(),
			})
		}
	}
	if !sm.Check.IsNull() {
		var c checkModel
		diags.Append(sm.Check.As(ctx, &c, basetypes.ObjectAsOptions{})...)
		if anyUnknown(c.Type, c.Port, c.Path, c.Interval, c.Timeout) {
			return svc, errUnknown
		}
		svc.Check = &instance.Check{Type: c.Type.ValueString(), Port: c.Port.ValueString(), Path: c.Path.ValueString()}
		svc.Check.Interval = durationOr(c.Interval, mustDuration(defaultCheckInterval))
		svc.Check.Timeout = durationOr(c.Timeout, mustDuration(defaultCheckTimeout))
	}
	return svc, nil
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
	if s.Count != nil {
		m.Count = types.Int64Value(int64(*s.Count))
	}
	m.Datacenters = listOf(ctx, s.Datacenters, &diags)
	m.Meta = mapOrNull(ctx, s.Meta, &diags)
	u := s.Update
	m.Update = types.ObjectValueMust(updateAttrTypes, map[string]attr.Value{
		"max_parallel":      types.Int64Value(int64(u.MaxParallel)),
		"min_healthy_time":  durationValue(u.MinHealthyTime),
		"healthy_deadline":  durationValue(u.HealthyDeadline),
		"progress_deadline": durationValue(u.ProgressDeadline),
		"auto_revert":       types.BoolValue(u.AutoRevert),
		"canary":            types.Int64Value(int64(u.Canary)),
	})
	services := make(map[string]attr.Value, len(s.Services))
	for name, svc := range s.Services {
		services[name] = serviceObject(ctx, svc, &diags)
	}
	m.Services = types.MapValueMust(types.ObjectType{AttrTypes: serviceAttrTypes}, services)
	m.Volumes = types.MapNull(types.ObjectType{AttrTypes: volumeClaimAttrTypes})
	if len(s.Volumes) > 0 {
		claims := make(map[string]attr.Value, len(s.Volumes))
		for key, c := range s.Volumes {
			// Defaults read back as null, the way an unset attribute reads.
			access, attach := stringOrNull(c.AccessMode), stringOrNull(c.AttachmentMode)
			if c.AccessMode == instance.DefaultVolumeAccessModeFor(c.ReadOnly) {
				access = types.StringNull()
			}
			if c.AttachmentMode == instance.DefaultVolumeAttachmentMode {
				attach = types.StringNull()
			}
			claims[key] = types.ObjectValueMust(volumeClaimAttrTypes, map[string]attr.Value{
				"volume": types.StringValue(c.Source), "read_only": types.BoolValue(c.ReadOnly),
				"access_mode": access, "attachment_mode": attach,
			})
		}
		m.Volumes = types.MapValueMust(types.ObjectType{AttrTypes: volumeClaimAttrTypes}, claims)
	}
	return diags
}

func serviceObject(ctx context.Context, svc instance.Service, diags *diag.Diagnostics) attr.Value {
	config := jsontypes.NewNormalizedNull()
	if len(svc.Config) > 0 {
		b, err := json.Marshal(svc.Config)
		if err != nil {
			diags.AddError("Unreadable driver config", "The task's driver config in Nomad cannot be encoded as JSON: "+err.Error())
		}
		config = jsontypes.NewNormalizedValue(string(b))
	}
	ports := types.MapNull(types.ObjectType{AttrTypes: portAttrTypes})
	if len(svc.Ports) > 0 {
		elems := make(map[string]attr.Value, len(svc.Ports))
		for label, p := range svc.Ports {
			elems[label] = types.ObjectValueMust(portAttrTypes, map[string]attr.Value{"to": intOrNull(p.To), "static": intOrNull(p.Static)})
		}
		ports = types.MapValueMust(types.ObjectType{AttrTypes: portAttrTypes}, elems)
	}
	check := types.ObjectNull(checkAttrTypes)
	if c := svc.Check; c != nil {
		check = types.ObjectValueMust(checkAttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "port": types.StringValue(c.Port), "path": stringOrNull(c.Path),
			"interval": durationValue(c.Interval), "timeout": durationValue(c.Timeout),
		})
	}
	mounts := types.ListNull(types.ObjectType{AttrTypes: mountAttrTypes})
	if len(svc.Mounts) > 0 {
		elems := make([]attr.Value, 0, len(svc.Mounts))
		for _, mt := range svc.Mounts {
			elems = append(elems, types.ObjectValueMust(mountAttrTypes, map[string]attr.Value{
				"volume": types.StringValue(mt.Volume), "destination": types.StringValue(mt.Destination), "read_only": types.BoolValue(mt.ReadOnly),
			}))
		}
		mounts = types.ListValueMust(types.ObjectType{AttrTypes: mountAttrTypes}, elems)
	}
	return types.ObjectValueMust(serviceAttrTypes, map[string]attr.Value{
		"role": types.StringValue(string(svc.Role)), "driver": types.StringValue(svc.Driver),
		"image": stringOrNull(svc.Image), "command": stringOrNull(svc.Command),
		"args": listOrNull(ctx, svc.Args, diags), "config": config, "env": mapOrNull(ctx, svc.Env, diags),
		"cpu": types.Int64Value(int64(svc.CPU)), "memory": types.Int64Value(int64(svc.Memory)), "memory_max": intOrNull(svc.MemoryMax),
		"ports": ports, "check": check, "mounts": mounts,
	})
}

// setComputed fills the attributes Nomad decides.
func setComputed(m *instanceModel, job *api.Job, allocs []*api.AllocationListStub) {
	m.ID = types.StringValue(instanceID(deref(job.Namespace), deref(job.ID)))
	m.JobVersion = types.Int64Value(int64(deref(job.Version)))
	m.JobModifyIndex = types.Int64Value(int64(deref(job.JobModifyIndex)))
	m.Status = types.StringValue(string(instance.DeriveStatus(deref(job.Stop), deref(job.Version), allocs)))
	var list []attr.Value
	sorted := append([]*api.AllocationListStub(nil), allocs...)
	sort.Slice(sorted, func(i, j int) bool {
		return sorted[i].Name < sorted[j].Name || sorted[i].Name == sorted[j].Name && sorted[i].ID < sorted[j].ID
	})
	for _, a := range sorted {
		if !allocstatus.Live(a.ClientStatus) {
			continue
		}
		healthy := types.BoolNull()
		if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			healthy = types.BoolValue(*a.DeploymentStatus.Healthy)
		}
		list = append(list, types.ObjectValueMust(allocationAttrTypes, map[string]attr.Value{
			"id": types.StringValue(a.ID), "node_id": types.StringValue(a.NodeID),
			"client_status": types.StringValue(a.ClientStatus), "healthy": healthy,
		}))
	}
	m.Allocations = types.ListValueMust(types.ObjectType{AttrTypes: allocationAttrTypes}, list)
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

// defaultEphemeralDiskMB is the disk Nomad gives each allocation when the
// job sets none (berth does not set it).
const defaultEphemeralDiskMB = 300

// chargeOf is what an instance running count allocations takes from a
// node reservation.
func chargeOf(s instance.Spec, count int) capacity.Resources {
	var per capacity.Resources
	for _, svc := range s.Services {
		per.CPU += int64(svc.CPU)
		per.MemoryMB += int64(svc.Memory)
	}
	per.DiskMB = defaultEphemeralDiskMB
	return capacity.Resources{CPU: per.CPU * int64(count), MemoryMB: per.MemoryMB * int64(count), DiskMB: per.DiskMB * int64(count)}
}
