package instance

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A service's templates and artifacts. Both are optional lists, null when
// unset, and every field Nomad fills in when it is left out is optional and
// not computed: null means Nomad's default, nothing is stored for it, and a
// change made in Nomad to it shows as drift (instance.AbsorbDefaults keeps it
// null while Nomad holds the default).

const fileDefaultDoc = " When unset, Nomad's default applies; a change made in Nomad then shows as drift."

// fileDuration is an optional Go duration without a default.
func fileDuration(desc string) schema.StringAttribute {
	return schema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
		MarkdownDescription: desc + " A Go duration such as `5s`."}
}

func fileString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
}

func fileBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, MarkdownDescription: desc}
}

// fileAttributes are the "templates" and "artifacts" attributes of a
// service.
func fileAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"templates": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "Files Nomad renders into the task before it starts and keeps up to date (the task's `template` " +
				"blocks), in order. The text is Nomad's template language (consul-template): it may read Nomad Variables " +
				"(`{{ with nomadVar \"nomad/jobs/<name>\" }}{{ .key }}{{ end }}`; the task reads `nomad/jobs/<name>` and the paths " +
				"below it without any policy) and Nomad service discovery (`{{ range nomadService \"db\" }}`). berth passes " +
				"the text through exactly; write `$${...}` for a literal `${` in Terraform. Rendering waits for what it reads, " +
				"so a template reading a Variable that does not exist holds the task back until it does.",
			NestedObject: schema.NestedAttributeObject{Attributes: templateAttributes()},
		},
		"artifacts": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "Files Nomad's client downloads into the task before it starts (the task's `artifact` blocks, " +
				"fetched with go-getter: `http(s)`, `git`, `s3`, `gcs`, ...; archives are unpacked), in order. A failed download " +
				"fails the task, and the apply with Nomad's message.",
			NestedObject: schema.NestedAttributeObject{Attributes: artifactAttributes()},
		},
	}
}

func templateAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"data": fileString("The template's text. Exactly one of `data` and `source` is set."),
		"source": fileString("Path of the template's text: on the Nomad client's host for `raw_exec`, otherwise inside " +
			"the task directory (for example one an artifact downloaded, `local/app.tpl`). Exactly one of `data` and `source` is set."),
		"destination": schema.StringAttribute{Required: true,
			MarkdownDescription: "Where the file is rendered, relative to the task directory, for example `local/app.conf` or " +
				"`secrets/app.env`; it may not lead out of the allocation, and two templates of a service may not share one. `" +
				instance.SecretEnvDestination + "` is reserved for berth's write-only secrets.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
		"change_mode": schema.StringAttribute{Optional: true,
			MarkdownDescription: "What happens when the rendered file changes: `restart` restarts the task, `signal` sends " +
				"`change_signal`, `script` runs `change_script` in the task, `noop` does nothing. One of " +
				shared.BacktickList(instance.TemplateChangeModes()) + ". Nomad's default: `restart`." + fileDefaultDoc,
			Validators: []validator.String{stringvalidator.OneOf(instance.TemplateChangeModes()...)}},
		"change_signal": schema.StringAttribute{Optional: true,
			MarkdownDescription: "Signal sent with `change_mode = \"signal\"` (and only then): " + shared.BacktickList(instance.KillSignals()) +
				". Nomad's default: `SIGHUP`." + fileDefaultDoc,
			Validators: []validator.String{stringvalidator.OneOf(instance.KillSignals()...)}},
		"change_script": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "Script run in the task with `change_mode = \"script\"`, required by it and only allowed with it.",
			Attributes: map[string]schema.Attribute{
				"command": schema.StringAttribute{Required: true, MarkdownDescription: "Path of the script inside the task.",
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
				"args":          schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Arguments of the script."},
				"timeout":       fileDuration("How long the script may run. Nomad's default: `5s`." + fileDefaultDoc),
				"fail_on_error": fileBool("Kill the task when the script fails. Nomad's default: `false`." + fileDefaultDoc),
			}},
		"env": fileBool("Read the rendered file as `KEY=value` lines into the task's environment (an env file). It " +
			"cannot be combined with `change_mode = \"signal\"`. Nomad's default: `false`." + fileDefaultDoc),
		"perms": schema.StringAttribute{Optional: true,
			MarkdownDescription: "File mode of the rendered file in octal, for example `0640`. Nomad's default: `0644`." + fileDefaultDoc,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
		"uid": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "User ID owning the rendered file. Default: the Nomad client's choice (the task's user where the driver has one)."},
		"gid": schema.Int64Attribute{Optional: true,
			MarkdownDescription: "Group ID owning the rendered file. Default: the Nomad client's choice."},
		"left_delimiter":  fileString("Left delimiter of the template language. Nomad's default: `{{`." + fileDefaultDoc),
		"right_delimiter": fileString("Right delimiter of the template language. Nomad's default: `}}`." + fileDefaultDoc),
		"splay": fileDuration("Upper bound of a random wait before `change_mode` acts, so that not every allocation " +
			"restarts at once; at least `0s`. Nomad's default: `5s`." + fileDefaultDoc),
		"once": fileBool("Render the file once, when the task starts, and never again. Nomad's default: `false`." + fileDefaultDoc),
		"wait": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "How long the data the template reads must be quiet before it is rendered: at least `min`, at " +
				"most `max` (consul-template's wait). Unset: the Nomad client's template configuration.",
			Attributes: map[string]schema.Attribute{
				"min": fileDuration("Minimum quiet time; at most `max`."),
				"max": fileDuration("Maximum wait."),
			}},
		"error_on_missing_key": fileBool("Fail rendering when the template indexes a map with a key it does not " +
			"have, rather than printing `<no value>`. Nomad's default: `false`." + fileDefaultDoc),
	}
}

func artifactAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"source": schema.StringAttribute{Required: true,
			MarkdownDescription: "What to download, a go-getter URL such as `https://example.com/app.tar.gz` or `git::https://example.com/repo.git`.",
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1)}},
		"destination": fileString("Where the download goes, relative to the task directory; it may not lead out of the " +
			"allocation. Nomad's default: `local/` (in `file` mode `local/<file name>`)." + fileDefaultDoc),
		"mode": schema.StringAttribute{Optional: true,
			MarkdownDescription: "`file` downloads one file to `destination`, `dir` a directory, `any` lets go-getter decide. " +
				"One of " + shared.BacktickList(instance.ArtifactModes()) + ". Nomad's default: `any`." + fileDefaultDoc,
			Validators: []validator.String{stringvalidator.OneOf(instance.ArtifactModes()...)}},
		"options": schema.MapAttribute{ElementType: types.StringType, Optional: true, Sensitive: true,
			MarkdownDescription: "go-getter options, for example `checksum = \"sha256:<hex>\"` (a download that does not match " +
				"fails the task), `archive = \"false\"` to keep an archive packed, or a `ref` for git. Sensitive, since they may " +
				"carry credentials (a git `sshkey`, cloud keys): Terraform does not show them and drift messages name only their " +
				"keys, but they are stored in state and in the Nomad job, which anyone who may read the job can see."},
		"headers": schema.MapAttribute{ElementType: types.StringType, Optional: true, Sensitive: true,
			MarkdownDescription: "HTTP headers sent with the download, for example an `Authorization` header. Sensitive: " +
				"Terraform does not show them, but they are stored in state and in the Nomad job, which anyone who may " +
				"read the job can see."},
		"insecure": fileBool("Skip TLS certificate verification of the download. Nomad's default: `false`." + fileDefaultDoc),
		"chown":    fileBool("Give the downloaded files to the task's user. Nomad's default: `false`." + fileDefaultDoc),
	}
}
