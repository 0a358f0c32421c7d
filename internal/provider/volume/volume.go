// Package volume is the Terraform layer's host and CSI volumes:
// berth_volume (resource, data source, list resource) with its schema,
// model and the checks of its names and sizes. The domain package
// internal/volume, imported under the same name, holds the volume logic;
// this package converts models and reports diagnostics.
//
// Files: volume_resource.go (CRUD) with volume_resource_<topic>.go,
// volume_schema.go, volume_model.go, volume_csi*.go for CSI volumes,
// volume_data_source.go, volume_list_resource.go; volume.go lists what the
// family offers, its identity and its validators. The two registrations
// (berth_csi_volume_registration, berth_host_volume_registration) share
// one core, registration*.go (resource, list resource, errors); each
// kind's csi_/host_registration_*.go is its schema, model and what
// differs. Tests sit beside each file.
package volume

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var volumeIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the volume; default: the provider's namespace.", Optional: true},
	{Name: "id", Doc: "Volume ID: a host volume's UUID or a CSI volume's ID; or the volume's name when it is unique in the namespace."},
}

// volumeNameValidator enforces the name rule of berth_volume: CSI volumes
// (type = "csi" in the same configuration) may end in a per-allocation
// index such as "[0]" (names.CSIVolumeRule), host volumes may not. While
// the type is unknown only the looser CSI rule is checked.
func volumeNameValidator() validator.String {
	return byTypeRule{
		desc: "must be " + names.Rule + "; a CSI volume's may end in a per-allocation index such as `[0]`",
		rule: func(typ types.String) shared.StringRule {
			rule := shared.StringRule{Summary: "Invalid name", Check: names.Check}
			if typ.IsUnknown() || typ.ValueString() == volume.TypeCSI {
				rule.Check = names.CheckCSIVolume
			}
			return rule
		},
	}
}

// volumeIDValidator: a host volume's ID (type = "host" in the same
// configuration) is a UUID; a CSI volume's is whatever its creator chose,
// so without a type only that it is not empty and holds no "/" is checked.
func volumeIDValidator() validator.String {
	return byTypeRule{
		desc: "must be " + names.VolumeIDRule + " for a host volume, or a CSI volume's ID",
		rule: func(typ types.String) shared.StringRule {
			rule := shared.StringRule{Summary: "Invalid volume ID", Desc: "must be " + names.VolumeIDRule, Check: names.CheckVolumeID}
			if typ.ValueString() != volume.TypeHost {
				rule.Check = checkCSIVolumeID
			}
			return rule
		},
	}
}

// byTypeRule checks a string by the rule the volume's type (the "type"
// attribute of the same configuration) calls for.
type byTypeRule struct {
	desc string
	rule func(typ types.String) shared.StringRule
}

func (v byTypeRule) Description(context.Context) string         { return v.desc }
func (v byTypeRule) MarkdownDescription(context.Context) string { return v.desc }

func (v byTypeRule) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	var typ types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	v.rule(typ).ValidateString(ctx, req, resp)
}

// checkCSIVolumeID accepts any CSI volume ID Nomad's API can address.
func checkCSIVolumeID(id string) error {
	switch {
	case id == "":
		return errors.New("a CSI volume ID must not be empty")
	case strings.Contains(id, "/"):
		return fmt.Errorf("a CSI volume ID has no %q (Nomad's API addresses volumes by path)", "/")
	}
	return nil
}

const volumeBudgetFix = "Lower capacity_max (or capacity_min), or grow the node reservation's disk."

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewVolumeResource, NewCSIRegistrationResource, NewHostRegistrationResource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewVolumeListResource, NewCSIRegistrationListResource, NewHostRegistrationListResource}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewVolumeDataSource}
}
