package volume

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// registration is what berth_csi_volume_registration and
// berth_host_volume_registration share: a volume that exists already,
// told to Nomad (create), registered again (update), forgotten (delete:
// its data stays), read back after each write, imported by
// namespace/ID, and listed (registration_list.go). M is the Terraform model,
// R the registration as internal/volume holds it, PM is *M; kind is what
// differs.
type registration[M, R any, PM registrationModel[M, R]] struct {
	shared.ResourceBase
	shared.WithIdentity
	// ids is the identity (WithIdentity holds it as the interface).
	ids  shared.ResourceIdentity
	kind registrationKind[R]
}

// registrationResource is what each registration is to the framework.
type registrationResource interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithModifyPlan
	resource.ResourceWithIdentity
	resource.ResourceWithMoveState
}

var _ = []registrationResource{&csiRegistrationResource{}, &hostRegistrationResource{}}

// registrationModel is a registration's model (a pointer to it): where
// it is in Nomad and how it converts.
type registrationModel[M, R any] interface {
	*M
	// address is the registration's namespace and ID in Nomad.
	address() (ns, id string)
	namespaceAttr() *types.String
	timeoutsValue() timeouts.Value
	toRegistration(ctx context.Context, diags *diag.Diagnostics) *R
	fromRegistration(ctx context.Context, r *R, diags *diag.Diagnostics)
	// notReadBack records id, and null for the values only Nomad knows,
	// when a write's read-back failed.
	notReadBack(id string)
}

// registrationKind is one kind of registration: its schema, how Nomad
// reads and lists it, its writes (workflows), and the checks only it
// makes.
type registrationKind[R any] struct {
	// what names it in messages ("CSI volume").
	what   string
	schema func(context.Context) schema.Schema
	// computed names the attributes only Nomad sets (by tfsdk tag); every
	// other one is a setting sameSettings compares.
	computed []string
	get      func(c *nomadclient.Client, ctx context.Context, ns, id string) (*R, error)
	// address is where Nomad holds r.
	address func(r *R) (ns, id string)
	// idAlias is another attribute that holds the ID ("" none).
	idAlias string
	// importHint is the command that lists what namespace ns can import.
	importHint func(ns string) string
	// checkRead warns about what a refresh found; checkImport refuses
	// what cannot be imported (either nil: nothing to check).
	checkRead   func(r *R, diags *diag.Diagnostics)
	checkImport func(id string, r *R, diags *diag.Diagnostics)
	// secrets (nil: none) adds the configuration's write-only values to
	// r, masks them in the logs of the returned context and returns what
	// redacts them from diagnostics.
	secrets func(ctx context.Context, cfg tfsdk.Config, r *R, diags *diag.Diagnostics) (context.Context, func(diag.Diagnostics) diag.Diagnostics)
	// create registers r and returns its ID ("" when nothing is
	// registered); update registers it again; remove deregisters it.
	create func(ctx context.Context, d *shared.ProviderData, r *R, diags *diag.Diagnostics) string
	update func(ctx context.Context, d *shared.ProviderData, r *R, diags *diag.Diagnostics)
	remove func(ctx context.Context, d *shared.ProviderData, ns, id string, diags *diag.Diagnostics)
	// The list resource: its doc, how Nomad lists, how a result is
	// shown, and what to warn about a listed registration (nil: nothing).
	listDoc     string
	list        func(c *nomadclient.Client, ctx context.Context, ns, namePrefix string) ([]volume.Summary, error)
	displayName func(s volume.Summary) string
	checkListed func(id string, r *R, diags *diag.Diagnostics)
}

func newRegistration[M, R any, PM registrationModel[M, R]](name string, id shared.ResourceIdentity, kind registrationKind[R]) registration[M, R, PM] {
	return registration[M, R, PM]{ResourceBase: shared.NewResourceBase(name), WithIdentity: shared.WithIdentity{Identity: id}, ids: id, kind: kind}
}

func (r *registration[M, R, PM]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.schema(ctx)
}

// ModifyPlan shows the namespace of a new registration, and keeps the
// computed values when no setting changes (sizes may be spelled
// differently, e.g. after a move), so such a plan is empty.
func (r *registration[M, R, PM]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		var plan, state M
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !resp.Diagnostics.HasError() && sameSettings(plan, state, r.kind.computed) {
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &state)...)
		}
		return
	}
	if shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.Data.Nomad.Namespace())...)
	}
}

func (r *registration[M, R, PM]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.write(ctx, req.Plan, req.Config, &resp.State, &resp.Diagnostics, true)
}

func (r *registration[M, R, PM]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.write(ctx, req.Plan, req.Config, &resp.State, &resp.Diagnostics, false)
}

// write registers the planned volume (creating: as a new one) and
// records what Nomad then holds.
func (r *registration[M, R, PM]) write(ctx context.Context, planned tfsdk.Plan, cfg tfsdk.Config, st *tfsdk.State,
	diags *diag.Diagnostics, creating bool) {
	var plan M
	m := PM(&plan)
	if diags.Append(planned.Get(ctx, m)...); diags.HasError() {
		return
	}
	timeout := m.timeoutsValue().Update
	if creating {
		timeout = m.timeoutsValue().Create
		if ns := m.namespaceAttr(); ns.IsUnknown() || ns.ValueString() == "" {
			*ns = types.StringValue(r.Data.Nomad.Namespace())
		}
	}
	ctx, cancel := withTimeout(ctx, timeout, diags)
	defer cancel()
	reg, ctx, redact := r.toNomad(ctx, m, cfg, diags)
	defer func() { *diags = redact(*diags) }()
	if diags.HasError() {
		return
	}
	ns, id := m.address()
	if creating {
		id = r.kind.create(ctx, r.Data, reg, diags)
	} else {
		r.kind.update(ctx, r.Data, reg, diags)
	}
	if id == "" || diags.HasError() {
		return
	}
	r.readBack(ctx, ns, id, m, diags)
	diags.Append(st.Set(ctx, m)...)
}

func (r *registration[M, R, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	m, ok := r.stored(ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	ns, id := m.address()
	reg, err := r.kind.get(r.Data.Nomad, ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the "+r.kind.what, err)
		return
	}
	if reg == nil {
		tflog.Info(ctx, capitalize(r.kind.what)+" is no longer registered; removing it from state", map[string]any{"id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	if r.kind.checkRead != nil {
		r.kind.checkRead(reg, &resp.Diagnostics)
	}
	m.fromRegistration(ctx, reg, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// stored is the model st holds (false: it could not be read, diags say
// why).
func (r *registration[M, R, PM]) stored(ctx context.Context, st tfsdk.State, diags *diag.Diagnostics) (PM, bool) {
	var state M
	m := PM(&state)
	diags.Append(st.Get(ctx, m)...)
	return m, !diags.HasError()
}

// Delete deregisters the volume: Nomad forgets it, and its data stays.
func (r *registration[M, R, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	m, ok := r.stored(ctx, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := withTimeout(ctx, m.timeoutsValue().Delete, &resp.Diagnostics)
	defer cancel()
	ns, id := m.address()
	r.kind.remove(ctx, r.Data, ns, id, &resp.Diagnostics)
}

// ImportState accepts `id` or `namespace/id`.
func (r *registration[M, R, PM]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := r.ids.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, id := r.Data.Nomad.Namespace(), importID
	if before, after, ok := strings.Cut(importID, "/"); ok {
		ns, id = before, after
	}
	reg, err := r.kind.get(r.Data.Nomad, ctx, ns, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the "+r.kind.what, err)
		return
	}
	if reg == nil {
		resp.Diagnostics.AddError(capitalize(r.kind.what)+" not found", fmt.Sprintf("Namespace %q has no %s with ID %q (%s lists them).",
			ns, r.kind.what, id, r.kind.importHint(ns)))
		return
	}
	if r.kind.checkImport != nil {
		if r.kind.checkImport(id, reg, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	ns, id = r.kind.address(reg)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	if r.kind.idAlias != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(r.kind.idAlias), id)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
}

// toNomad is the registration to write from m, with the configuration's
// secrets; redact is to be applied to every diagnostic from here on.
func (r *registration[M, R, PM]) toNomad(ctx context.Context, m PM, cfg tfsdk.Config, diags *diag.Diagnostics) (
	reg *R, _ context.Context, redact func(diag.Diagnostics) diag.Diagnostics) {
	reg = m.toRegistration(ctx, diags)
	if r.kind.secrets == nil {
		return reg, ctx, func(d diag.Diagnostics) diag.Diagnostics { return d }
	}
	ctx, redact = r.kind.secrets(ctx, cfg, reg, diags)
	return reg, ctx, redact
}

// readBack records the registration into m after a write; failing to read
// it leaves m as planned (with its unknowns null) and warns.
func (r *registration[M, R, PM]) readBack(ctx context.Context, ns, id string, m PM, diags *diag.Diagnostics) {
	fresh := shared.CleanupContext(ctx)
	reg, err := r.kind.get(r.Data.Nomad, fresh, ns, id)
	if err == nil && reg != nil {
		m.fromRegistration(fresh, reg, diags)
		return
	}
	diags.AddWarning("Could not read the "+r.kind.what+" back",
		fmt.Sprintf("%s %q was registered, but reading it back failed (%v). The next terraform plan reads it from Nomad.",
			capitalize(r.kind.what), id, err))
	m.notReadBack(id)
}

// withTimeout bounds ctx by the operation's configured timeout (five
// minutes unless set).
func withTimeout(ctx context.Context, configured func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	timeout, d := configured(ctx, 5*time.Minute)
	diags.Append(d...)
	return context.WithTimeout(ctx, timeout)
}
