package instance

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// secretEnvAttributes are a service's secrets: a write-only map (never in
// plan or state; the framework allows one inside "services" only while
// "services" is neither computed nor a set) and the version that says
// when to write it again.
func secretEnvAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"secret_env_wo": schema.MapAttribute{
			ElementType: types.StringType, Optional: true, WriteOnly: true, Sensitive: true,
			MarkdownDescription: "Secret environment variables, **write-only**: needs Terraform 1.11 or later, and the values are " +
				"never stored in the plan or state. berth writes them to the Nomad Variable `nomad/jobs/<name>/<group>/<service>` " +
				"(which only this task may read, through its workload identity, with no ACL policy) before it registers the job, " +
				"and the task gets them as environment variables from an `env = true` template rendering that Variable. Requires " +
				"`secret_env_wo_version`: Terraform cannot tell whether a write-only value changed, so **bump the version to rotate " +
				"the secrets** (berth rewrites the Variable and Nomad replaces the allocations). Names are environment variable " +
				"names, not also in `env`; names plus values may take up to 64 KiB. Removing the attribute (with its version) deletes " +
				"the Variable after the job no longer reads it; destroy deletes it after the job is gone.",
		},
		"secret_env_wo_version": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Version of `secret_env_wo`, stored in state (and in the task's meta): set it with `secret_env_wo`, and " +
				"change it (for example increment it) whenever the secrets change; only then are they written again. The instance name, " +
				"its group and the service name must form a valid Nomad Variable path (`nomad/jobs/<name>/<group>/<service>`: at most " +
				"128 letters, digits, `-`, `_`, `~` and `/`). When the template berth renders them with is removed or altered in Nomad, " +
				"or the Variable is deleted, this attribute reads as unset, so the plan shows an update that writes them again.",
			Validators: []validator.Int64{int64validator.AtLeast(0)},
		},
	}
}
