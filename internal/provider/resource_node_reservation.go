package provider

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ resource.ResourceWithConfigure      = &nodeReservationResource{}
	_ resource.ResourceWithImportState    = &nodeReservationResource{}
	_ resource.ResourceWithValidateConfig = &nodeReservationResource{}
	_ resource.ResourceWithModifyPlan     = &nodeReservationResource{}
)

// NewNodeReservationResource builds the berth_node_reservation resource.
func NewNodeReservationResource() resource.Resource { return &nodeReservationResource{} }

type nodeReservationResource struct{ data *ProviderData }

type nodeReservationModel struct {
	ID          types.String   `tfsdk:"id"`
	Name        types.String   `tfsdk:"name"`
	NodeID      types.String   `tfsdk:"node_id"`
	Placement   types.Object   `tfsdk:"placement"`
	CPU         types.Int64    `tfsdk:"cpu"`
	Memory      types.Int64    `tfsdk:"memory"`
	Disk        types.Int64    `tfsdk:"disk"`
	Annotations types.Map      `tfsdk:"annotations"`
	NodeName    types.String   `tfsdk:"node_name"`
	Datacenter  types.String   `tfsdk:"datacenter"`
	NodeStatus  types.String   `tfsdk:"node_status"`
	CreatedAt   types.String   `tfsdk:"created_at"`
	Used        types.Object   `tfsdk:"used"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

// defaultNodeReservationTimeout bounds create, update and delete when the
// timeouts block does not: a ledger write under contention retries, and
// scheduling may try several nodes.
const defaultNodeReservationTimeout = 5 * time.Minute

type placementModel struct {
	Datacenter types.String `tfsdk:"datacenter"`
	NodePool   types.String `tfsdk:"node_pool"`
	NodeClass  types.String `tfsdk:"node_class"`
	Strategy   types.String `tfsdk:"strategy"`
}

func strategies() []string {
	out := make([]string, len(ledger.Strategies()))
	for i, s := range ledger.Strategies() {
		out[i] = string(s)
	}
	return out
}

func (r *nodeReservationResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_reservation"
}

func (r *nodeReservationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	amount := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
			MarkdownDescription: desc + " Default `0`; changed in place.", Validators: []validator.Int64{int64validator.AtLeast(0)}}
	}
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A named hold on CPU, memory and disk of one node, kept in a check-and-set ledger in Nomad " +
			"Variables (`berth/nodes/<node-id>` in the provider's `ledger_namespace`) so no node is ever double-booked, even when " +
			"several `terraform apply` runs race. Without `node_id`, berth schedules the reservation onto a node. Instances and " +
			"volumes can then be placed into it with their `node_reservation` attribute.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<node_id>/<name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name, unique per node. Changing it replaces the reservation." + nameRuleDoc,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{nameValidator()}},
			"node_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Full ID of the node to reserve on. When unset berth picks a node (see `placement`) and reports it here. Changing it replaces the reservation.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				Validators:          []validator.String{nodeIDValidator()}},
			"placement": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Where to schedule the reservation when `node_id` is unset. Candidates are nodes that are " +
					"ready, eligible and not draining, match these filters and have room. Changing it replaces the reservation.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(placementChanged,
					"A new placement replaces the reservation.", "A new placement replaces the reservation.")},
				Attributes: map[string]schema.Attribute{
					"datacenter": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this datacenter."},
					"node_pool":  schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this node pool."},
					"node_class": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes of this class."},
					"strategy": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(string(ledger.Binpack)),
						MarkdownDescription: "`binpack` picks the node left with the least free capacity (Nomad's default), `spread` the most; " +
							"ties go to the lowest node ID. One of " + backtickList(strategies()) + ". Default `binpack`.",
						Validators: []validator.String{stringvalidator.OneOf(strategies()...)}},
				},
			},
			"cpu":         amount("CPU in MHz."),
			"memory":      amount("Memory in MiB."),
			"disk":        amount("Disk in MiB."),
			"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Free-form labels kept with the reservation."},
			"node_name":   computed("Name of the node."),
			"datacenter":  computed("Datacenter of the node."),
			"node_status": computed("Status of the node; `gone` when it left the cluster (the reservation is kept, never silently moved)."),
			"created_at":  computed("When the reservation was made, RFC 3339."),
			"used": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "What work placed into the reservation (instances, volumes) uses of it.",
				Attributes: map[string]schema.Attribute{
					"cpu":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU in MHz."},
					"memory": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
					"disk":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk in MiB."},
				}},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
				CreateDescription: "How long creating may take (choosing a node and writing the ledger), e.g. `10m`. Default `5m`.",
				UpdateDescription: "How long resizing may take, e.g. `10m`. Default `5m`.",
				DeleteDescription: "How long releasing may take, e.g. `10m`. Default `5m`."}),
		},
	}
}

// placementChanged: a placement only matters before the node is chosen,
// so adding one to an imported reservation (state null) is no change.
func placementChanged(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.StateValue.IsNull() && !req.PlanValue.Equal(req.StateValue)
}

func (r *nodeReservationResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *nodeReservationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeReservationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || anyUnknown(m.CPU, m.Memory, m.Disk) {
		return
	}
	// Negative amounts are the schema's to report; "empty" would repeat them.
	if m.CPU.ValueInt64() == 0 && m.Memory.ValueInt64() == 0 && m.Disk.ValueInt64() == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("cpu"), "Empty reservation",
			"A node reservation must hold something: set at least one of cpu, memory or disk above 0.")
	}
	if !m.NodeID.IsNull() && !m.Placement.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("placement"), "placement is ignored with node_id",
			"placement only chooses a node when node_id is unset; remove one of them.")
	}
}

func (m *nodeReservationModel) request() capacity.Resources {
	return capacity.Resources{CPU: m.CPU.ValueInt64(), MemoryMB: m.Memory.ValueInt64(), DiskMB: m.Disk.ValueInt64()}
}

// reservationRequest converts the model. Annotations or a placement that
// cannot be decoded are reported at their attribute, never silently
// replaced by defaults (a lost placement would reserve on any node).
func (m *nodeReservationModel) reservationRequest(ctx context.Context, diags *diag.Diagnostics) nomadclient.ReservationRequest {
	req := nomadclient.ReservationRequest{Name: m.Name.ValueString(), NodeID: m.NodeID.ValueString(), Request: m.request()}
	if m.NodeID.IsUnknown() {
		req.NodeID = ""
	}
	if !m.Annotations.IsNull() && !m.Annotations.IsUnknown() {
		if d := m.Annotations.ElementsAs(ctx, &req.Annotations, false); d.HasError() {
			diags.AddAttributeError(path.Root("annotations"), "Invalid annotations",
				"berth could not read the annotations as a map of strings: "+diagSummary(d)+". Use string values only.")
		}
	}
	req.Placement.Strategy = ledger.Binpack
	if m.Placement.IsNull() || m.Placement.IsUnknown() {
		return req
	}
	var p placementModel
	if d := m.Placement.As(ctx, &p, basetypes.ObjectAsOptions{}); d.HasError() {
		diags.AddAttributeError(path.Root("placement"), "Invalid placement",
			"berth could not read the placement, so it cannot honor it: "+diagSummary(d)+
				". Set datacenter, node_pool, node_class and strategy to known strings, or remove placement.")
		return req
	}
	for name, v := range map[string]types.String{"datacenter": p.Datacenter, "node_pool": p.NodePool, "node_class": p.NodeClass, "strategy": p.Strategy} {
		if v.IsUnknown() {
			diags.AddAttributeError(path.Root("placement").AtName(name), "Placement not known yet",
				"placement."+name+" depends on a value known only after apply, but berth needs it to choose a node. Use a value known at plan time.")
		}
	}
	req.Placement = nomadclient.Placement{Datacenter: p.Datacenter.ValueString(), NodePool: p.NodePool.ValueString(),
		NodeClass: p.NodeClass.ValueString(), Strategy: ledger.Strategy(p.Strategy.ValueString())}
	if req.Placement.Strategy == "" {
		req.Placement.Strategy = ledger.Binpack
	}
	return req
}

// diagSummary joins the summaries and details of diagnostics' errors.
func diagSummary(d diag.Diagnostics) string {
	var parts []string
	for _, e := range d.Errors() {
		parts = append(parts, e.Summary()+": "+e.Detail())
	}
	return strings.Join(parts, "; ")
}

// ModifyPlan checks at plan time that a reservation on a known node fits,
// with the same message as apply. If Nomad cannot be reached it warns and
// leaves the check to apply.
func (r *nodeReservationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var plan nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.NodeID.IsUnknown() || plan.NodeID.IsNull() || anyUnknown(plan.CPU, plan.Memory, plan.Disk, plan.Name) {
		return
	}
	if !req.State.Raw.IsNull() {
		var state nodeReservationModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.request() == plan.request() && state.NodeID.Equal(plan.NodeID) {
			return // nothing to re-check
		}
	}
	ctx = r.data.Nomad.MaskSecrets(ctx)
	rr := plan.reservationRequest(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.data.Nomad.CheckReservation(ctx, r.data.LedgerNamespace, rr)
	var connErr *nomadclient.ConnectError
	var timeoutErr *nomadclient.TimeoutError
	var notFound *nomadclient.NodeNotFoundError
	switch {
	case err == nil:
	case errors.As(err, &connErr), errors.As(err, &timeoutErr):
		resp.Diagnostics.AddWarning("Capacity not checked at plan time",
			"berth could not get an answer from Nomad to check that the reservation fits ("+err.Error()+"); apply will check it.")
	case errors.As(err, &notFound):
		resp.Diagnostics.AddAttributeError(path.Root("node_id"), "Node not found",
			err.Error()+". Use a full node ID from the berth_nodes data source or `nomad node status`.")
	default:
		addReservationError(&resp.Diagnostics, "The reservation does not fit", err)
	}
}

func (r *nodeReservationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, defaultNodeReservationTimeout)
	resp.Diagnostics.Append(d...)
	rr := plan.reservationRequest(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	opCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nodeID, err := r.data.Nomad.Reserve(opCtx, r.data.LedgerNamespace, rr)
	if err != nil {
		addReservationError(&resp.Diagnostics, "Could not reserve capacity", err)
		// The write may have landed although its answer was lost (timeout,
		// dropped connection): record a hold that exists, so it is not
		// orphaned in the ledger (Terraform marks it tainted).
		if nodeID != "" {
			plan.NodeID = types.StringValue(nodeID)
			if r.refresh(cleanupContext(ctx), &plan, &diag.Diagnostics{}) && !plan.ID.IsUnknown() && !plan.ID.IsNull() {
				resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			}
		}
		return
	}
	tflog.Info(ctx, "Reserved node capacity", map[string]any{"node": nodeID, "name": rr.Name})
	plan.NodeID = types.StringValue(nodeID)
	// Read back with a fresh bound: the operation's may be nearly spent.
	if !r.refresh(cleanupContext(ctx), &plan, &resp.Diagnostics) {
		resp.Diagnostics.AddError("Reservation vanished", "The reservation was written but could not be read back; run terraform apply again.")
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// refresh reads the reservation into m; false when its ledger item is gone.
func (r *nodeReservationResource) refresh(ctx context.Context, m *nodeReservationModel, diags *diag.Diagnostics) bool {
	nodeID, name := m.NodeID.ValueString(), m.Name.ValueString()
	res, found, err := r.data.Nomad.ReadReservation(ctx, r.data.LedgerNamespace, nodeID, name)
	if err != nil {
		addNomadError(diags, "Could not read the reservation", err)
		return true
	}
	if !found {
		return false
	}
	m.ID = types.StringValue(nodeID + "/" + name)
	m.CPU = types.Int64Value(res.Request.CPU)
	m.Memory = types.Int64Value(res.Request.MemoryMB)
	m.Disk = types.Int64Value(res.Request.DiskMB)
	m.Annotations = keepEmptyMap(m.Annotations, mapOrNull(ctx, res.Annotations, diags))
	m.CreatedAt = types.StringValue(res.CreatedAt.UTC().Format(time.RFC3339))
	m.Used = capacityObject(res.Used())
	m.NodeName = types.StringValue(res.NodeName)
	m.Datacenter = types.StringValue(res.Datacenter)
	m.NodeStatus = types.StringValue(res.NodeStatus)
	if res.NodeGone {
		m.NodeStatus = types.StringValue("gone")
	}
	return true
}

func (r *nodeReservationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state nodeReservationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.refresh(ctx, &state, &resp.Diagnostics) {
		tflog.Info(ctx, "Reservation is gone from the ledger; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *nodeReservationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan, state nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, defaultNodeReservationTimeout)
	resp.Diagnostics.Append(d...)
	rr := plan.reservationRequest(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// A change of timeouts alone writes nothing.
	if plan.request() != state.request() || !plan.Annotations.Equal(state.Annotations) {
		opCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if _, err := r.data.Nomad.Reserve(opCtx, r.data.LedgerNamespace, rr); err != nil {
			addReservationError(&resp.Diagnostics, "Could not resize the reservation", err)
			// State must say what the ledger holds now, whether or not
			// the failed write landed: read it back with a fresh bound.
			state.Timeouts = plan.Timeouts
			if r.refresh(cleanupContext(ctx), &state, &diag.Diagnostics{}) {
				resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			}
			return
		}
	}
	if !r.refresh(cleanupContext(ctx), &plan, &resp.Diagnostics) {
		resp.Diagnostics.AddError("Reservation vanished",
			"The reservation was resized but is no longer in the node's ledger; run terraform apply again to recreate it.")
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *nodeReservationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state nodeReservationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultNodeReservationTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := r.data.Nomad.ReleaseReservation(ctx, r.data.LedgerNamespace, state.NodeID.ValueString(), state.Name.ValueString()); err != nil {
		addReservationError(&resp.Diagnostics, "Could not release the reservation", err)
	}
}

// ImportState accepts `<node_id>/<name>`; a unique node ID prefix works.
func (r *nodeReservationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	prefix, name, err := nomadclient.ParseReservationID(req.ID)
	if err == nil {
		err = names.CheckNodeIDPrefix(prefix)
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error()+". Import IDs are `<node_id>/<name>`; the node ID may be a unique prefix.")
		return
	}
	node, err := r.data.Nomad.FindNode(ctx, prefix, "", r.data.LedgerNamespace)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Cannot import the reservation", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_id"), node.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), node.ID+"/"+name)...)
}

// addReservationError reports capacity and budget refusals in berth's own
// words (they already name the node and the numbers), and Nomad failures
// with Nomad's.
func addReservationError(diags *diag.Diagnostics, summary string, err error) {
	var notEnough *ledger.NotEnoughError
	var noCand *ledger.NoCandidateError
	var budget *ledger.BudgetError
	switch {
	case errors.As(err, &notEnough), errors.As(err, &noCand), errors.As(err, &budget), errors.Is(err, nomadclient.ErrLedgerContention):
		diags.AddError(summary, err.Error())
	default:
		addNomadError(diags, summary, err)
	}
}
