package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccVolume_updateTimeoutKeepsState grows a volume that then never
// reads "ready" (a proxy in front of the real agent reports it pending)
// within timeouts.update, through the real terraform CLI. The apply fails
// with exactly that error: nothing about reading the node with an expired
// deadline, no "invalid result object". State holds the new capacity and
// the node's name, and once the volume reads ready the plan is empty.
func TestAccVolume_updateTimeoutKeepsState(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	proxy, addr := startVolumeErrorProxy(t)
	name := "berth-acc-volto-" + randomHex(3)
	// Pinned: Nomad places an unpinned host volume on the first node by ID
	// that has the plugin, even one that is down (another test's).
	node := mainNode(t, testNomad(t)).ID
	bin := buildProviderBinary(t)
	dir := t.TempDir()
	env := append(cleanEnv(), "NOMAD_TOKEN="+os.Getenv("NOMAD_TOKEN"),
		"TF_CLI_CONFIG_FILE="+devOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
	write := func(capMax, timeouts string) {
		writeFile(t, filepath.Join(dir, "main.tf"), `
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
		runTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
	})

	write("20MiB", "")
	runTerraform(t, dir, env, "apply", "-auto-approve", "-input=false", "-no-color")

	proxy.setPending(true)
	write("30MiB", `timeouts = { update = "15s" }`)
	out, err := terraformOutput(dir, env, "apply", "-auto-approve", "-input=false", "-no-color")
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

	vals := onlyStateResource(t, dir, env, "volume")
	v, _, err := testNomad(t).HostVolumes().Get(vals["id"].(string), nil)
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
	if out, err := terraformOutput(dir, env, "plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Fatalf("the plan after the timed-out update is not empty (%v):\n%s", err, out)
	}
}
