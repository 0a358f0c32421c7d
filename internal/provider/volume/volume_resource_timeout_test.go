package volume

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccVolume_updateTimeoutKeepsState grows a volume that then never
// reads "ready" (a proxy in front of the real agent reports it pending)
// within timeouts.update, through the real terraform CLI. The apply fails
// with exactly that error: nothing about reading the node with an expired
// deadline, no "invalid result object". State holds the new capacity and
// the node's name, and once the volume reads ready the plan is empty.
func TestAccVolume_updateTimeoutKeepsState(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	proxy, addr := startVolumeErrorProxy(t)
	name := "berth-acc-volto-" + acctest.RandomHex(3)
	// Pinned: Nomad places an unpinned host volume on the first node by ID
	// that has the plugin, even one that is down (another test's).
	node := acctest.MainNode(t, acctest.Nomad(t)).ID
	bin := acctest.BuildProviderBinary(t)
	dir := t.TempDir()
	env := append(acctest.CleanEnv(), "NOMAD_TOKEN="+os.Getenv("NOMAD_TOKEN"),
		"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
	write := func(capMax, timeouts string) {
		acctest.WriteFile(t, filepath.Join(dir, "main.tf"), `
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
provider "berth" {
  address = "`+addr+`"
}
resource "berth_volume" "v" {
  name         = "`+name+`"
  node_id      = "`+node+`"
  capacity_max = "`+capMax+`"
  `+timeouts+`
}
`)
	}
	t.Cleanup(func() {
		proxy.setPending(false)
		acctest.RunTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
	})

	write("20MiB", "")
	acctest.RunTerraform(t, dir, env, "apply", "-auto-approve", "-input=false", "-no-color")

	proxy.setPending(true)
	write("30MiB", `timeouts = { update = "15s" }`)
	out, err := acctest.TerraformOutput(dir, env, "apply", "-auto-approve", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("the apply succeeded although the volume never read ready:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("want exactly one error, got %d:\n%s", n, out)
	}
	if !strings.Contains(out, "The volume did not become ready after the update") {
		t.Errorf("the error is not the timeout:\n%s", out)
	}
	if strings.Contains(out, "invalid result object") {
		t.Errorf("Terraform found unknown values in the result:\n%s", out)
	}

	vals := acctest.OnlyStateResource(t, dir, env, "volume")
	v, _, err := acctest.Nomad(t).HostVolumes().Get(vals["id"].(string), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.RequestedCapacityMaxBytes != 30<<20 {
		t.Errorf("Nomad has capacity_max %d bytes, want 30MiB", v.RequestedCapacityMaxBytes)
	}
	if vals["capacity_max"] != "30MiB" || vals["state"] != "pending" || vals["node_name"] == "" || vals["node_name"] == nil {
		t.Errorf("state after the timed-out update: capacity_max %v, state %v, node_name %v", vals["capacity_max"], vals["state"], vals["node_name"])
	}

	proxy.setPending(false)
	if out, err := acctest.TerraformOutput(dir, env, "plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Fatalf("the plan after the timed-out update is not empty (%v):\n%s", err, out)
	}
}
