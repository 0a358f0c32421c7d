package shared

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// thingSource is what the test mover reads of a nomad_thing: not its
// secret, which the source state holds beside it.
type thingSource struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

type thingModel struct {
	Name types.String `tfsdk:"name"`
	Size types.Int64  `tfsdk:"size"`
}

const peerAddress = "registry.terraform.io/hashicorp/nomad"

// moveThing runs a MoveFrom("nomad_thing") mover as the framework does
// (an empty target state to fill) and says how often convert ran.
func moveThing(t *testing.T, req resource.MoveStateRequest, refuse bool) (*resource.MoveStateResponse, int) {
	t.Helper()
	ctx := context.Background()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"name": schema.StringAttribute{Required: true},
		"size": schema.Int64Attribute{Optional: true},
	}}
	resp := &resource.MoveStateResponse{TargetState: tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}}
	calls := 0
	mover := MoveFrom("nomad_thing", func(_ context.Context, src thingSource, diags *diag.Diagnostics) thingModel {
		calls++
		if refuse {
			diags.AddError("Cannot move this nomad_thing", "it sets something berth does not hold")
		}
		return thingModel{Name: types.StringValue(src.Name), Size: types.Int64Value(src.Size)}
	})
	if mover.SourceSchema != nil {
		t.Fatal("the mover declares a source schema; it reads the raw JSON")
	}
	mover.StateMover(ctx, req, resp)
	return resp, calls
}

func rawState(json string) *tfprotov6.RawState { return &tfprotov6.RawState{JSON: []byte(json)} }

// A move from another type, another provider, or without a state is not
// this mover's: it says nothing and writes nothing, so the framework
// tries the next one.
func TestMoveFrom_otherSourcesLeftAlone(t *testing.T) {
	for name, req := range map[string]resource.MoveStateRequest{
		"another type":     {SourceProviderAddress: peerAddress, SourceTypeName: "nomad_other", SourceRawState: rawState(`{"name":"a"}`)},
		"another provider": {SourceProviderAddress: "registry.terraform.io/example/nomad2", SourceTypeName: "nomad_thing", SourceRawState: rawState(`{"name":"a"}`)},
		"a look-alike":     {SourceProviderAddress: "registry.terraform.io/hashicorp/nomadic", SourceTypeName: "nomad_thing", SourceRawState: rawState(`{"name":"a"}`)},
		"no state":         {SourceProviderAddress: peerAddress, SourceTypeName: "nomad_thing"},
	} {
		resp, calls := moveThing(t, req, false)
		if len(resp.Diagnostics) > 0 || !resp.TargetState.Raw.IsNull() || calls != 0 {
			t.Errorf("%s: took it (diagnostics %v, state %s, convert ran %d times)", name, resp.Diagnostics, resp.TargetState.Raw, calls)
		}
	}
}

// A state that does not decode into the source struct is one error
// naming the source type and the field, without the value found there.
func TestMoveFrom_undecodableStateReported(t *testing.T) {
	const secret = "s3cr3t-size"
	resp, calls := moveThing(t, resource.MoveStateRequest{SourceProviderAddress: peerAddress, SourceTypeName: "nomad_thing",
		SourceRawState: rawState(`{"name":"a","size":"` + secret + `"}`)}, false)
	if resp.Diagnostics.ErrorsCount() != 1 || len(resp.Diagnostics) != 1 {
		t.Fatalf("want one error, got %v", resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	if d.Summary() != "Could not read the nomad_thing state" {
		t.Errorf("summary %q", d.Summary())
	}
	if !strings.Contains(d.Detail(), "nomad_thing being moved") || !strings.Contains(d.Detail(), "size") {
		t.Errorf("detail %q: want the source type and the field", d.Detail())
	}
	if strings.Contains(d.Detail(), secret) {
		t.Errorf("detail %q holds the value", d.Detail())
	}
	if calls != 0 || !resp.TargetState.Raw.IsNull() {
		t.Errorf("convert ran %d times, state %s: want neither after a decode error", calls, resp.TargetState.Raw)
	}
}

// Convert's refusal is the answer: its error, and no state.
func TestMoveFrom_refusalWritesNoState(t *testing.T) {
	resp, calls := moveThing(t, resource.MoveStateRequest{SourceProviderAddress: peerAddress, SourceTypeName: "nomad_thing",
		SourceRawState: rawState(`{"name":"a"}`)}, true)
	if calls != 1 || resp.Diagnostics.ErrorsCount() != 1 || resp.Diagnostics[0].Summary() != "Cannot move this nomad_thing" {
		t.Fatalf("convert ran %d times, diagnostics %v: want its one error", calls, resp.Diagnostics)
	}
	if !resp.TargetState.Raw.IsNull() {
		t.Errorf("a refused move wrote state %s", resp.TargetState.Raw)
	}
}

// The converted model becomes berth's state; what the source struct does
// not name (a secret here) is not read.
func TestMoveFrom_writesConvertedState(t *testing.T) {
	for _, addr := range []string{peerAddress, "hashicorp/nomad", "mirror.example.com/hashicorp/nomad"} {
		resp, calls := moveThing(t, resource.MoveStateRequest{SourceProviderAddress: addr, SourceTypeName: "nomad_thing",
			SourceRawState: rawState(`{"name":"a","size":3,"secret_id":"s3cr3t","unknown_block":[{"x":1}]}`)}, false)
		if resp.Diagnostics.HasError() || calls != 1 {
			t.Fatalf("%s: convert ran %d times, diagnostics %v", addr, calls, resp.Diagnostics)
		}
		var m thingModel
		if d := resp.TargetState.Get(context.Background(), &m); d.HasError() {
			t.Fatalf("%s: state: %v", addr, d)
		}
		if m.Name.ValueString() != "a" || m.Size.ValueInt64() != 3 {
			t.Errorf("%s: moved state %+v", addr, m)
		}
		if strings.Contains(resp.TargetState.Raw.String(), "s3cr3t") {
			t.Errorf("%s: the source's secret reached the state: %s", addr, resp.TargetState.Raw)
		}
	}
}
