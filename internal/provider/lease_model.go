package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

type leaseModel struct {
	ID              types.String         `tfsdk:"id"`
	Name            types.String         `tfsdk:"name"`
	Namespace       types.String         `tfsdk:"namespace"`
	Duration        timetypes.GoDuration `tfsdk:"duration"`
	NodeID          types.String         `tfsdk:"node_id"`
	NodeReservation types.String         `tfsdk:"node_reservation"`
	Workload        types.Object         `tfsdk:"workload"`
	Renew           types.Bool           `tfsdk:"renew"`
	WaitForRunning  types.Bool           `tfsdk:"wait_for_running"`
	User            types.String         `tfsdk:"user"`
	CreatedAt       types.String         `tfsdk:"created_at"`
	ExpiresAt       types.String         `tfsdk:"expires_at"`
	Expired         types.Bool           `tfsdk:"expired"`
	Signature       types.String         `tfsdk:"signature"`
	Verified        types.Bool           `tfsdk:"verified"`
	Result          types.Object         `tfsdk:"result"`
	JobModifyIndex  types.Int64          `tfsdk:"job_modify_index"`
	Timeouts        timeouts.Value       `tfsdk:"timeouts"`
}

type workloadModel struct {
	Driver  types.String `tfsdk:"driver"`
	Image   types.String `tfsdk:"image"`
	Command types.String `tfsdk:"command"`
	Args    types.List   `tfsdk:"args"`
	Env     types.Map    `tfsdk:"env"`
	CPU     types.Int64  `tfsdk:"cpu"`
	Memory  types.Int64  `tfsdk:"memory"`
	Disk    types.Int64  `tfsdk:"disk"`
}

// Lease result states; docs and code use this list.
const (
	resultPending = "pending"
	resultOK      = "ok"
	resultError   = "error"
	resultExpired = "expired"
)

var resultStates = []string{resultPending, resultOK, resultError, resultExpired}

var resultAttrTypes = map[string]attr.Type{
	"state": types.StringType, "error": types.StringType, "node_id": types.StringType,
	"allocation_id": types.StringType, "address": types.StringType,
}

func durationsEqual(v timetypes.GoDuration, d time.Duration) bool {
	got, diags := v.ValueGoDuration()
	return !diags.HasError() && got == d
}

func workloadObject(ctx context.Context, w lease.Workload, diags *diag.Diagnostics) types.Object {
	return types.ObjectValueMust(workloadAttrTypes, map[string]attr.Value{
		"driver": types.StringValue(w.Driver), "image": stringOrNull(w.Image), "command": stringOrNull(w.Command),
		"args": listOrNull(ctx, w.Args, diags), "env": mapOrNull(ctx, w.Env, diags),
		"cpu": types.Int64Value(int64(w.CPU)), "memory": types.Int64Value(int64(w.Memory)), "disk": types.Int64Value(int64(w.Disk)),
	})
}

// leaseResult derives result from the newest allocation.
func leaseResult(l lease.Lease, allocs []*api.AllocationListStub, expired bool) types.Object {
	state, errText, nodeID, allocID, address := resultPending, "", "", "", ""
	if newest := nomadclient.NewestAllocation(allocs); newest != nil {
		nodeID, allocID = newest.NodeID, newest.ID
		ts := newest.TaskStates[lease.WorkloadTask]
		switch {
		case ts != nil && ts.Failed:
			state = resultError
			errText = strings.Join(nomadclient.FailedTaskEvents([]*api.AllocationListStub{newest}), "; ")
		case newest.ClientStatus == api.AllocClientStatusFailed || newest.ClientStatus == api.AllocClientStatusLost:
			state, errText = resultError, fmt.Sprintf("allocation %s is %s: %s", newest.ID, newest.ClientStatus, newest.ClientDescription)
		case ts != nil && ts.State == "running":
			state = resultOK
		}
	}
	if expired && state != resultError {
		state = resultExpired
	}
	return types.ObjectValueMust(resultAttrTypes, map[string]attr.Value{
		"state": types.StringValue(state), "error": types.StringValue(errText), "node_id": types.StringValue(nodeID),
		"allocation_id": types.StringValue(allocID), "address": types.StringValue(address),
	})
}

func unknownOf(attrName string) attr.Value {
	switch attrName {
	case "verified", "expired":
		return types.BoolUnknown()
	case "result":
		return types.ObjectUnknown(resultAttrTypes)
	case "job_modify_index":
		return types.Int64Unknown()
	}
	return types.StringUnknown()
}

// keepEmptyWorkloadCollections keeps "env = {}" and "args = []" from
// prior where Nomad reports nothing, so they are no change (the workload
// forces replacement, so a phantom diff would replace the lease).
func keepEmptyWorkloadCollections(prior, next types.Object) types.Object {
	if prior.IsNull() || prior.IsUnknown() {
		return next
	}
	pa, na := prior.Attributes(), next.Attributes()
	out := make(map[string]attr.Value, len(na))
	for k, v := range na {
		out[k] = v
	}
	if p, ok := pa["env"].(types.Map); ok {
		if n, ok := na["env"].(types.Map); ok {
			out["env"] = keepEmptyMap(p, n)
		}
	}
	if p, ok := pa["args"].(types.List); ok {
		if n, ok := na["args"].(types.List); ok {
			out["args"] = keepEmptyList(p, n)
		}
	}
	return types.ObjectValueMust(workloadAttrTypes, out)
}
