package instance

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A service's registrations (internal/instance/registrations.go): optional
// and null when unset, so instances that do not use them add nothing to
// what a plan walks. Inside a registration, the fields Nomad fills in when
// left out (provider, address_mode, on_update, a check's interval, timeout
// and check_restart.grace) have those values as defaults; the rest are
// null when unset.

func registrationsAttribute() schema.Attribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Service registrations of this task (Nomad `service` blocks), for Nomad's own service discovery " +
			"(`provider = \"nomad\"`, the default) or Consul's. Deployments wait for their checks to pass. Conflicts with " +
			"`check`, which is the shorthand for one Nomad registration named `<instance>-<service>` with one check. All " +
			"registrations of an instance use one provider. With `consul`, the Nomad agents need a Consul agent; berth validates " +
			"Consul registrations as Nomad does but is tested only against Nomad's own provider.",
		Validators: []validator.List{
			listvalidator.SizeAtLeast(1),
			listvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("check")),
		},
		NestedObject: schema.NestedAttributeObject{Attributes: registrationAttributes()},
	}
}

func optionalString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
}

func optionalStringList(desc string) schema.ListAttribute {
	return schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: desc}
}

func optionalStringMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: desc}
}

func falseByDefault(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
		MarkdownDescription: desc + " Default `false`."}
}

func enumWithDefault(desc string, values []string, def string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(def),
		MarkdownDescription: desc + " One of " + shared.BacktickList(values) + ". Default `" + def + "`.",
		Validators:          []validator.String{stringvalidator.OneOf(values...)}}
}

func registrationAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"provider": enumWithDefault("Service discovery provider. `nomad` supports only `http` and `tcp` checks, without "+
			"`address_mode = \"driver\"` or `ignore_warnings`.", instance.RegistrationProviders(), instance.ProviderNomad),
		"name": schema.StringAttribute{Required: true,
			MarkdownDescription: "Service name in the catalog: letters, digits and `-`, at most 63 characters. Runtime variables " +
				"such as `${NOMAD_META_x}` are allowed; `${JOB}`, `${TASKGROUP}`, `${TASK}` and `${BASE}` are not (Nomad rewrites them " +
				"when the job is registered)."},
		"port": optionalString("Label of a port declared by a service of this instance (a number only with `address_mode = \"driver\"`); " +
			"the registered address's port and the default port of its checks."),
		"tags":        optionalStringList("Tags of the registration."),
		"canary_tags": optionalStringList("Tags used instead of `tags` while the allocation is a canary."),
		"meta":        optionalStringMap("Service meta."),
		"canary_meta": optionalStringMap("Service meta used instead of `meta` while the allocation is a canary."),
		"address_mode": enumWithDefault("Which address is registered: `auto`, the `host`'s, or the task `driver`'s (for example a "+
			"container's). `driver` is Consul only: a plan-time error with `provider = \"nomad\"`.", instance.RegistrationAddressModes(), instance.DefaultAddressMode),
		"address": optionalString("Address to register instead of the allocation's; only with `address_mode = \"auto\"`."),
		"on_update": enumWithDefault("How the checks count during a deployment: `require_healthy` (they must pass), "+
			"`ignore_warnings` (warnings count as passing; Consul only), `ignore` (they do not count). Checks inherit it.",
			instance.OnUpdateModes(), instance.DefaultOnUpdate),
		"checks": schema.ListNestedAttribute{
			Optional:            true,
			MarkdownDescription: "Health checks of the registration; deployments wait for them to pass (see `on_update`).",
			Validators:          []validator.List{listvalidator.SizeAtLeast(1)},
			NestedObject:        schema.NestedAttributeObject{Attributes: registrationCheckAttributes()},
		},
	}
}

func registrationCheckAttributes() map[string]schema.Attribute {
	count := []validator.Int64{int64validator.AtLeast(0)}
	// Consul's script checks and its other check settings (gRPC service
	// and TLS, thresholds, notes, initial status, tagged addresses, tag
	// override) are not managed: each attribute makes every plan dearer,
	// and a job using them is refused on import rather than read without
	// them (instance.unmanagedCheckSettings).
	return map[string]schema.Attribute{
		"name": optionalString("Check name, unique within the registration; it names the check in a failed deployment's error. " +
			"Default: Nomad's `service: \"<name>\" check`, so a registration with several checks must name all but one."),
		"type": schema.StringAttribute{Required: true,
			MarkdownDescription: "Check type: " + shared.BacktickList(instance.RegistrationCheckTypes()) + ". `grpc` is Consul only: a plan-time error with `provider = \"nomad\"`.",
			Validators:          []validator.String{stringvalidator.OneOf(instance.RegistrationCheckTypes()...)}},
		"port":     optionalString("Label of a declared port to check. Default: the registration's `port`."),
		"path":     optionalString("HTTP path, required for `http` checks."),
		"method":   optionalString("HTTP method of `http` checks. Default `GET`."),
		"protocol": optionalString("`http` or `https` for `http` checks. Default `http`."),
		"header": schema.MapAttribute{ElementType: types.ListType{ElemType: types.StringType}, Optional: true,
			MarkdownDescription: "HTTP headers of `http` checks, each with its list of values."},
		"body":            optionalString("HTTP body of `http` checks."),
		"interval":        durationAttr("Time between checks; at least `1s`. Default `10s`.", defaultCheckInterval),
		"timeout":         durationAttr("Time a check may take; at least `1s`. Default `2s`.", defaultCheckTimeout),
		"address_mode":    schema.StringAttribute{Optional: true, MarkdownDescription: "Which address the check targets: " + shared.BacktickList(instance.CheckAddressModes()) + ". Default: the registration's address. `driver` is Consul only: a plan-time error with `provider = \"nomad\"`.", Validators: []validator.String{stringvalidator.OneOf(instance.CheckAddressModes()...)}},
		"on_update":       schema.StringAttribute{Optional: true, MarkdownDescription: "How this check counts during a deployment: " + shared.BacktickList(instance.OnUpdateModes()) + ". Default: the registration's `on_update`.", Validators: []validator.String{stringvalidator.OneOf(instance.OnUpdateModes()...)}},
		"tls_skip_verify": falseByDefault("Skip TLS verification."),
		"check_restart": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "Restart the task when the check keeps failing.",
			Attributes: map[string]schema.Attribute{
				"limit": schema.Int64Attribute{Optional: true, Validators: count,
					MarkdownDescription: "Restart after this many consecutive failures; `0` never restarts."},
				"grace":           durationAttr("Time after the task starts before failures count. Default `1s`.", "1s"),
				"ignore_warnings": falseByDefault("Treat warnings as passing. `true` is Consul only: a plan-time error with `provider = \"nomad\"`."),
			},
		},
	}
}
