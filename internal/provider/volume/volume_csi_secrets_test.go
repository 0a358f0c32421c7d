package volume

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// A CSI plugin that repeats the secrets it was given in its error (Nomad
// passes the error back): the diagnostic shows a placeholder instead.
func TestVolumeCreate_csiPluginErrorHidesSecrets(t *testing.T) {
	t.Parallel()
	const secret, other = "csi-s3cret-7d1f0a", "csi-other-93b2"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/volume/csi/data":
			http.Error(w, "volume not found", http.StatusNotFound)
		case r.Method == http.MethodPut && r.URL.Path == "/v1/volume/csi/data/create":
			// What a plugin that echoes its input makes Nomad answer.
			http.Error(w, "rpc error: controller create volume: CSI.ControllerCreateVolume: plugin ebs: "+
				"invalid credentials {access_key="+secret+", region_key="+other+"}", http.StatusInternalServerError)
		default:
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
		}
	}))
	defer srv.Close()
	client, err := nomadclient.New(nomadclient.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	m := fullVolumeModel(t)
	m.Type, m.PluginID, m.Name, m.ID = types.StringValue(volume.TypeCSI), types.StringValue("ebs"), types.StringValue("data"), types.StringUnknown()
	m.AccessMode, m.AttachmentMode, m.NodeID, m.NodePool = types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()
	m.NodeReservation, m.Constraints, m.ForceDestroy = types.StringNull(), types.ListNull(m.Constraints.ElementType(ctx)), types.BoolValue(false)
	var diags diag.Diagnostics
	m.SecretsWO = shared.MapOrNull(ctx, map[string]string{"access_key": secret, "region_key": other}, &diags)
	s := volumeSchema(ctx)
	config := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	diags.Append(config.Set(ctx, &m)...)
	m.SecretsWO = types.MapNull(types.StringType) // write-only: not in the plan
	plan := tfsdk.Plan{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	diags.Append(plan.Set(ctx, &m)...)
	if diags.HasError() {
		t.Fatal(diags)
	}

	r := NewVolumeResource().(*volumeResource)
	r.Data = &shared.ProviderData{Nomad: client, LedgerNamespace: "default"}
	resp := &resource.CreateResponse{State: tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}}
	r.Create(ctx, resource.CreateRequest{Plan: plan, Config: tfsdk.Config{Schema: s, Raw: config.Raw}}, resp)
	if !resp.Diagnostics.HasError() {
		t.Fatalf("no error for a refused create: %v", resp.Diagnostics)
	}
	var shown strings.Builder
	for _, d := range resp.Diagnostics {
		shown.WriteString(d.Summary() + "\n" + d.Detail() + "\n")
	}
	if !strings.Contains(shown.String(), "invalid credentials {access_key="+volume.SecretPlaceholder+", region_key="+volume.SecretPlaceholder+"}") {
		t.Errorf("the diagnostic lost what the plugin said:\n%s", shown.String())
	}
	for _, v := range []string{secret, other} {
		if strings.Contains(shown.String(), v) {
			t.Errorf("a secret value is in the diagnostics:\n%s", shown.String())
		}
	}
}

// What is logged through the context of a CSI create masks the secrets.
func TestMaskCSISecrets(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	ctx := maskCSISecrets(tflogtest.RootLogger(t.Context(), &logged), []string{"csi-s3cret-7d1f0a"})
	tflog.Info(ctx, "plugin said csi-s3cret-7d1f0a", map[string]any{"error": "bad csi-s3cret-7d1f0a"})
	if !strings.Contains(logged.String(), "plugin said") || strings.Contains(logged.String(), "csi-s3cret-7d1f0a") {
		t.Errorf("log:\n%s", logged.String())
	}
}
