package shared

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// NamedModel is the model of an object known by its name alone: the name
// is also its ID.
type NamedModel[M any] interface {
	*M
	// NameAndID are the model's name and id attributes.
	NameAndID() (name, id *types.String)
}

// NamedObject is the create, read, update, import and listing of a Nomad
// object known by its name alone whose write creates or overwrites (a
// namespace, a node pool). A resource embeds it (its Create, Read and
// Update are the resource's, its List the list resource's) and keeps what
// is its own: delete, the write's refusals, what may not be imported.
// M is the resource's model, O what Nomad holds.
type NamedObject[M any, PM NamedModel[M], O any] struct {
	// Base is the embedding resource's base: its provider data.
	Base *ResourceBase
	// Noun names the kind in messages: "namespace", "node pool"; Plural
	// is the kind's plural.
	Noun, Plural string
	// ListHint says how to list the objects, for an import that names
	// one Nomad lacks.
	ListHint string
	// Get and All are nomadclient.Client's methods (method expressions).
	// Get is the object, or nil when Nomad has none of that name; All is
	// the objects whose name starts with prefix.
	Get func(c *nomadclient.Client, ctx context.Context, name string) (*O, error)
	All func(c *nomadclient.Client, ctx context.Context, prefix string) ([]O, error)
	// Write sends the model to Nomad; false when it did not (diags say why).
	Write func(ctx context.Context, m PM, summary string, diags *diag.Diagnostics) bool
	// Listed says whether the list resource shows an object (nil: all).
	Listed func(o *O) bool
	// NameOf is an object's name.
	NameOf func(o *O) string
	// ListIdentity and ModelSchema are the resource's identity and
	// schema, for the list's results.
	ListIdentity SingleIdentity
	ModelSchema  func() resourceschema.Schema
	// From writes what Nomad holds into the model: the model's method,
	// as a method expression ((*model).fromX).
	From func(m PM, ctx context.Context, o *O, diags *diag.Diagnostics)
}

func (n NamedObject[M, PM, O]) title() string { return strings.ToUpper(n.Noun[:1]) + n.Noun[1:] }

// Create refuses a name Nomad already has (its write would take the
// object over), writes, and records what Nomad then holds.
func (n NamedObject[M, PM, O]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan := PM(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	nameAttr, _ := plan.NameAndID()
	name := nameAttr.ValueString()
	existing, err := n.Get(n.Base.Data.Nomad, ctx, name)
	if err != nil {
		AddNomadError(&resp.Diagnostics, "Could not check whether the "+n.Noun+" exists", err)
		return
	}
	if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), n.title()+" already exists",
			fmt.Sprintf("Nomad already has a %s named %q. Choose another name, or manage it here by importing it: "+
				"terraform import <address> %s", n.Noun, name, name))
		return
	}
	if !n.Write(ctx, plan, "Could not create the "+n.Noun, &resp.Diagnostics) {
		return
	}
	tflog.Info(ctx, "Created "+n.Noun, map[string]any{"name": name})
	n.readBack(ctx, plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// Read refreshes the state, and removes it when Nomad no longer has the
// object.
func (n NamedObject[M, PM, O]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state := PM(new(M))
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, _ := state.NameAndID()
	o, err := n.Get(n.Base.Data.Nomad, ctx, name.ValueString())
	if err != nil {
		AddNomadError(&resp.Diagnostics, "Could not read the "+n.Noun, err)
		return
	}
	if o == nil {
		tflog.Info(ctx, n.title()+" is gone from Nomad; removing it from state", map[string]any{"name": name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	n.From(state, ctx, o, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// Update writes the plan and records what Nomad then holds.
func (n NamedObject[M, PM, O]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan := PM(new(M))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !n.Write(ctx, plan, "Could not update the "+n.Noun, &resp.Diagnostics) {
		return
	}
	name, _ := plan.NameAndID()
	tflog.Info(ctx, "Updated "+n.Noun, map[string]any{"name": name.ValueString()})
	n.readBack(ctx, plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// readBack records the object as Nomad now has it; when the read fails,
// the plan as written is kept (a warning says so).
func (n NamedObject[M, PM, O]) readBack(ctx context.Context, plan PM, diags *diag.Diagnostics) {
	name, id := plan.NameAndID()
	*id = *name
	o, err := n.Get(n.Base.Data.Nomad, ctx, name.ValueString())
	if err != nil || o == nil {
		var found diag.Diagnostics
		if err == nil {
			err = errors.New("the " + n.Noun + " was written but is not there")
		}
		AddNomadError(&found, "Could not read the "+n.Noun+" back", err)
		for _, d := range found {
			diags.AddWarning(d.Summary(), d.Detail()+" State records the "+n.Noun+" as configured; the next refresh reads it again.")
		}
		return
	}
	n.From(plan, ctx, o, diags)
}

// Import starts the state of the object named name, which Nomad must
// have; the read that follows fills in the rest.
func (n NamedObject[M, PM, O]) Import(ctx context.Context, name string, resp *resource.ImportStateResponse) {
	o, err := n.Get(n.Base.Data.Nomad, ctx, name)
	if err != nil {
		AddNomadError(&resp.Diagnostics, "Cannot import the "+n.Noun, err)
		return
	}
	if o == nil {
		resp.Diagnostics.AddError(n.title()+" not found", fmt.Sprintf("Nomad has no %s named %q. %s", n.Noun, name, n.ListHint))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// NamePrefixList is the configuration of a list resource of named objects.
type NamePrefixList struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

// ListObjects is the list resource's List: the objects whose name starts
// with the list block's name_prefix, sorted as Nomad lists them.
func (n NamedObject[M, PM, O]) ListObjects(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := OpenList[NamePrefixList](ctx, n.Base.Data, req, stream)
	if !ok {
		return
	}
	all, err := n.All(n.Base.Data.Nomad, ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		ListFailed(stream, "Could not list "+n.Plural, err)
		return
	}
	stream.Results = ListStream(all, req.Limit, func(o O) (list.ListResult, bool) {
		if n.Listed != nil && !n.Listed(&o) {
			return list.ListResult{}, false
		}
		result := req.NewListResult(ctx)
		result.DisplayName = n.NameOf(&o)
		n.ListIdentity.Record(ctx, result.Identity, result.DisplayName, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := NullResourceModel[M](ctx, n.ModelSchema())
		result.Diagnostics.Append(d...)
		n.From(&m, ctx, &o, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
