package schemacurve

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Serve serves the curve provider on Terraform's plugin protocol 6, its
// schema from $CURVE_SHAPE.
func Serve() error {
	shape, err := ParseShape(os.Getenv(EnvShape))
	if err != nil {
		return err
	}
	if shape.Quiet {
		quietSDKLogs()
	}
	return providerserver.Serve(context.Background(), func() provider.Provider { return &curveProvider{shape} },
		providerserver.ServeOpts{Address: "registry.terraform.io/berthhq/curve"})
}

// quietSDKLogs turns off the trace logs terraform-plugin-go and the
// framework write to stderr by default (Terraform parses every line and
// drops them unless TF_LOG asks for them), unless a TF_LOG variable is set.
func quietSDKLogs() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") {
			return
		}
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		os.Setenv(v, "off")
	}
}

type curveProvider struct{ shape Shape }

func (p *curveProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "curve"
}

func (p *curveProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (p *curveProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *curveProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &thing{p.shape} }}
}

func (p *curveProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// thing is curve_thing: it stores its configuration and reads it back
// unchanged.
type thing struct{ shape Shape }

func (t *thing) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_thing"
}

func (t *thing) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = t.shape.Schema()
}

// Schema is the resource schema of the shape.
func (s Shape) Schema() schema.Schema {
	sc := schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		},
		Blocks: map[string]schema.Block{},
	}
	leaves := func() map[string]schema.Attribute {
		as := map[string]schema.Attribute{}
		for j := range s.K {
			as[fmt.Sprintf("a%d", j)] = schema.StringAttribute{Optional: true, Computed: s.Computed}
		}
		return as
	}
	// object is the nested object of a container attribute, wrapped.
	object := func() schema.NestedAttributeObject {
		as := leaves()
		for range s.Wrap {
			as = map[string]schema.Attribute{"w": schema.SingleNestedAttribute{Optional: true, Attributes: as}}
		}
		return schema.NestedAttributeObject{Attributes: as}
	}
	blockObject := func() (map[string]schema.Attribute, map[string]schema.Block) {
		as, bs := leaves(), map[string]schema.Block{}
		for range s.Wrap {
			as, bs = nil, map[string]schema.Block{"w": schema.SingleNestedBlock{Attributes: as, Blocks: bs}}
		}
		return as, bs
	}
	for _, m := range s.members() {
		var a schema.Attribute
		switch m.kind {
		case kString:
			a = schema.StringAttribute{Optional: true, Computed: s.Computed}
		case kList:
			a = schema.ListAttribute{Optional: true, Computed: s.Computed, ElementType: types.StringType}
		case kMap:
			a = schema.MapAttribute{Optional: true, Computed: s.Computed, ElementType: types.StringType}
		case kSingle:
			o := object()
			a = schema.SingleNestedAttribute{Optional: true, Computed: s.Computed, Attributes: o.Attributes}
		case kListNested:
			a = schema.ListNestedAttribute{Optional: true, Computed: s.Computed, NestedObject: object()}
		case kSetNested:
			a = schema.SetNestedAttribute{Optional: true, Computed: s.Computed, NestedObject: object()}
		case kMapNested:
			a = schema.MapNestedAttribute{Optional: true, Computed: s.Computed, NestedObject: object()}
		case kBlock:
			as, bs := blockObject()
			sc.Blocks[m.name] = schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{Attributes: as, Blocks: bs}}
		case kSBlock:
			as, bs := blockObject()
			sc.Blocks[m.name] = schema.SingleNestedBlock{Attributes: as, Blocks: bs}
		}
		if a != nil {
			sc.Attributes[m.name] = a
		}
	}
	return sc
}

// known replaces the unknown values of v (computed leaves left unset) with
// nulls, as a provider that sets nothing would.
func known(v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
}

func (t *thing) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	raw, err := known(req.Plan.Raw)
	if err != nil {
		resp.Diagnostics.AddError("curve", err.Error())
		return
	}
	resp.State.Raw = raw
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), "curve")...)
}

func (t *thing) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (t *thing) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	raw, err := known(req.Plan.Raw)
	if err != nil {
		resp.Diagnostics.AddError("curve", err.Error())
		return
	}
	resp.State.Raw = raw
}

func (t *thing) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
