package shared

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// PeerProvider is the other Nomad provider, whose resources berth takes
// over with `moved` blocks. Addresses are matched by their end, so a
// mirror's host (or none, in a dev override) still counts.
const PeerProvider = "hashicorp/nomad"

// FromPeer reports whether a move request comes from the other Nomad
// provider's resource of type sourceType, with a state to read.
func FromPeer(req resource.MoveStateRequest, sourceType string) bool {
	return req.SourceTypeName == sourceType && strings.HasSuffix(req.SourceProviderAddress, PeerProvider) &&
		req.SourceRawState != nil
}

// MoveFrom is the mover for `moved { from = <sourceType>.x  to = berth_… }`
// from the other Nomad provider: it decodes that resource's state (JSON,
// as the other provider wrote it) into T, a struct of the attributes
// berth reads, and writes convert's model as berth's state. A move from
// anything else is left alone, so the framework tries the next mover or
// says none took it. convert refuses a move by adding an error to diags;
// the state is then not written.
//
// T's fields are the only attributes read: whatever the source holds
// beside them (a token's secret, a volume's secrets) never reaches berth.
func MoveFrom[T, M any](sourceType string, convert func(ctx context.Context, src T, diags *diag.Diagnostics) M) resource.StateMover {
	return resource.StateMover{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if !FromPeer(req, sourceType) {
			return // not ours: the framework says no mover took it
		}
		var src T
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			// A type mismatch's message names the field and the types, not the value.
			resp.Diagnostics.AddError("Could not read the "+sourceType+" state", "berth could not decode the state of the "+
				sourceType+" being moved: "+err.Error()+". Check that it was written by hashicorp/nomad 2.x.")
			return
		}
		m := convert(ctx, src, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
	}}
}
