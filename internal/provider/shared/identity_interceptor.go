package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// Identity is how a resource is identified: a ResourceIdentity (two
// attributes) or a SingleIdentity (one).
type Identity interface {
	Schema() identityschema.Schema
	ImportID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string
	FromState(ctx context.Context, st, prior *tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics)
}

// WithIdentity, embedded in a resource, gives it its identity schema and
// puts it under the identity interceptor (InterceptIdentity), which
// records the identity after every Create, Read, Update and ImportState:
// no resource method records it by hand, so none can forget.
type WithIdentity struct{ Identity Identity }

func (w WithIdentity) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = w.Identity.Schema()
}

func (w WithIdentity) identity() Identity { return w.Identity }

// Every resource that embeds WithIdentity answers identity().
var _ interface{ identity() Identity } = WithIdentity{}

// identifiedResource is a resource that embeds WithIdentity.
type identifiedResource interface {
	resource.ResourceWithIdentity
	resource.ResourceWithImportState
	identity() Identity
}

// InterceptIdentity wraps each resource that embeds WithIdentity in the
// identity interceptor; the others are returned as they are. The
// provider applies it once to every family's resources.
func InterceptIdentity(ctors []func() resource.Resource) []func() resource.Resource {
	out := make([]func() resource.Resource, len(ctors))
	for i, ctor := range ctors {
		out[i] = func() resource.Resource {
			r := ctor()
			if ir, ok := r.(identifiedResource); ok {
				return &identityInterceptor{inner: ir}
			}
			return r
		}
	}
	return out
}

// Unwrap is the resource an interceptor wraps (r itself otherwise), for
// code and tests that need the resource's own type.
func Unwrap(r resource.Resource) resource.Resource {
	if w, ok := r.(*identityInterceptor); ok {
		return w.inner
	}
	return r
}

// identityInterceptor forwards every call to the resource it wraps, and
// records the identity from the state each Create, Read, Update and
// ImportState leaves, however the call ended. The framework decides by
// interface what a resource can do, so the optional interfaces are all
// forwarded, and answer as a resource without them would where the
// wrapped resource lacks one (no validators, no plan changes, no movers,
// no upgraders); import and identity every wrapped resource has.
type identityInterceptor struct{ inner identifiedResource }

var (
	_ resource.ResourceWithConfigure        = &identityInterceptor{}
	_ resource.ResourceWithConfigValidators = &identityInterceptor{}
	_ resource.ResourceWithValidateConfig   = &identityInterceptor{}
	_ resource.ResourceWithModifyPlan       = &identityInterceptor{}
	_ resource.ResourceWithMoveState        = &identityInterceptor{}
	_ resource.ResourceWithUpgradeState     = &identityInterceptor{}
	_ resource.ResourceWithUpgradeIdentity  = &identityInterceptor{}
	_ resource.ResourceWithImportState      = &identityInterceptor{}
	_ resource.ResourceWithIdentity         = &identityInterceptor{}
)

func (w *identityInterceptor) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	w.inner.Metadata(ctx, req, resp)
}

func (w *identityInterceptor) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	w.inner.Schema(ctx, req, resp)
}

func (w *identityInterceptor) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	w.inner.IdentitySchema(ctx, req, resp)
}

func (w *identityInterceptor) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	w.inner.Create(ctx, req, resp)
	w.inner.identity().FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

// Read records from the state Read was given when Read removed the
// resource: the framework wants an identity even then.
func (w *identityInterceptor) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	w.inner.Read(ctx, req, resp)
	w.inner.identity().FromState(ctx, &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
}

func (w *identityInterceptor) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	w.inner.Update(ctx, req, resp)
	w.inner.identity().FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (w *identityInterceptor) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	w.inner.Delete(ctx, req, resp)
}

func (w *identityInterceptor) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	w.inner.ImportState(ctx, req, resp)
	w.inner.identity().FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
}

func (w *identityInterceptor) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if r, ok := w.inner.(resource.ResourceWithConfigure); ok {
		r.Configure(ctx, req, resp)
	}
}

func (w *identityInterceptor) ConfigValidators(ctx context.Context) []resource.ConfigValidator {
	if r, ok := w.inner.(resource.ResourceWithConfigValidators); ok {
		return r.ConfigValidators(ctx)
	}
	return nil
}

func (w *identityInterceptor) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if r, ok := w.inner.(resource.ResourceWithValidateConfig); ok {
		r.ValidateConfig(ctx, req, resp)
	}
}

func (w *identityInterceptor) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r, ok := w.inner.(resource.ResourceWithModifyPlan); ok {
		r.ModifyPlan(ctx, req, resp)
	}
}

func (w *identityInterceptor) MoveState(ctx context.Context) []resource.StateMover {
	if r, ok := w.inner.(resource.ResourceWithMoveState); ok {
		return r.MoveState(ctx)
	}
	return nil
}

func (w *identityInterceptor) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	if r, ok := w.inner.(resource.ResourceWithUpgradeState); ok {
		return r.UpgradeState(ctx)
	}
	return nil
}

func (w *identityInterceptor) UpgradeIdentity(ctx context.Context) map[int64]resource.IdentityUpgrader {
	if r, ok := w.inner.(resource.ResourceWithUpgradeIdentity); ok {
		return r.UpgradeIdentity(ctx)
	}
	return nil
}
