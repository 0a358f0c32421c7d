package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The bases below are embedded by every resource, data source, ephemeral
// resource and action: they name the type ("berth_" + Name) and keep the
// provider's data from Configure, so a new one is its schema and its
// behavior. A list resource embeds its resource, whose base already
// answers the list kind's Metadata and Configure (they take the resource
// kind's request types).
//
// Data is nil until Configure ran (validation runs without it).

// ResourceBase supplies Metadata and Configure to a resource or, through
// the resource it embeds, to a list resource.
type ResourceBase struct {
	Name string
	Data *ProviderData
}

// NewResourceBase is the base of the resource berth_<name>.
func NewResourceBase(name string) ResourceBase { return ResourceBase{Name: name} }

func (b *ResourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + b.Name
}

func (b *ResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.Data = ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

// DataSourceBase supplies Metadata and Configure to a data source.
type DataSourceBase struct {
	Name string
	Data *ProviderData
}

// NewDataSourceBase is the base of the data source berth_<name>.
func NewDataSourceBase(name string) DataSourceBase { return DataSourceBase{Name: name} }

func (b *DataSourceBase) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + b.Name
}

func (b *DataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.Data = ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

// EphemeralBase supplies Metadata and Configure to an ephemeral resource.
type EphemeralBase struct {
	Name string
	Data *ProviderData
}

// NewEphemeralBase is the base of the ephemeral resource berth_<name>.
func NewEphemeralBase(name string) EphemeralBase { return EphemeralBase{Name: name} }

func (b *EphemeralBase) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + b.Name
}

func (b *EphemeralBase) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	b.Data = ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ActionBase supplies Metadata and Configure to an action.
type ActionBase struct {
	Name string
	Data *ProviderData
}

// NewActionBase is the base of the action berth_<name>.
func NewActionBase(name string) ActionBase { return ActionBase{Name: name} }

func (b *ActionBase) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + b.Name
}

func (b *ActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.Data = ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}
