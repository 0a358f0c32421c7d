package provider_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccExampleWebApp_applyPlanDestroy applies examples/web-app as a user
// would: the page rendered from the Nomad Variable, the password reaching
// the task and never the state, the service in Nomad's catalog with its
// checks passing, an empty next plan, and nothing left after destroy.
func TestAccExampleWebApp_applyPlanDestroy(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	raw, err := os.ReadFile("../../examples/web-app/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(raw), `source = "berthhq/berth"`, `source = "hashicorp/berth"`, 1)
	c := acctest.NewTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if v, _, err := c.TF.Version(ctx, false); err == nil && v.LessThan(version.Must(version.NewVersion("1.11.0"))) {
		t.Skipf("the example's write-only password needs Terraform 1.11 or later (CLI is %s)", v)
	}
	name := "web-app-" + acctest.RandomHex(3)
	password := "pw-" + acctest.RandomHex(8)
	greeting := "Hello " + acctest.RandomHex(4)
	acctest.SetJobVariable(t, name, map[string]string{"greeting": greeting, "log_level": "info"})
	// As a user might: the values in terraform.tfvars (tfexec refuses
	// TF_VAR_ in its environment).
	vars := fmt.Sprintf("name = %q\ndb_password = %q\n", name, password)
	if err := os.WriteFile(filepath.Join(c.Dir, "terraform.tfvars"), []byte(vars), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Init(ctx, config)
	c.MustApply(ctx, "web app")

	nomad := acctest.Nomad(t)
	allocs, _, err := nomad.Jobs().Allocations(name, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := acctest.RunningAllocs(allocs); n != 2 {
		t.Fatalf("job %s runs %d allocations, want 2", name, n)
	}
	page, err := acctest.AllocFile(nomad, name, "app/local/site/index.html")
	if err != nil || !strings.Contains(page, "<h1>"+greeting+"</h1>") {
		t.Fatalf("the page rendered from the Variable reads %q (%v), want the greeting %q", page, err, greeting)
	}
	if status, err := acctest.AllocFile(nomad, name, "app/local/site/status.txt"); err != nil || status != "database password: set\n" {
		t.Fatalf("status.txt reads %q (%v): the task did not get DB_PASSWORD", status, err)
	}
	regs, _, err := nomad.Services().Get(name, nil)
	if err != nil || len(regs) != 2 {
		t.Fatalf("service %s in the catalog: %d registrations (%v), want 2", name, len(regs), err)
	}
	for _, r := range regs {
		if !slices.Equal(r.Tags, []string{"web", "public"}) {
			t.Fatalf("service %s registered with tags %v, want [web public]", name, r.Tags)
		}
	}
	state, err := os.ReadFile(filepath.Join(c.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(state), password) {
		t.Fatal("the password is in terraform.tfstate")
	}
	c.ExpectEmptyPlan(ctx, "web app")

	c.Destroy(ctx)
	if _, _, err := nomad.Jobs().Info(name, nil); !acctest.IsNotFound(err) {
		t.Fatalf("job %s after destroy: %v; want it purged", name, err)
	}
	secretPath := fmt.Sprintf("nomad/jobs/%s/app/app", name)
	if _, _, err := nomad.Variables().Read(secretPath, nil); !errors.Is(err, api.ErrVariablePathNotFound) {
		t.Fatalf("variable %s after destroy: %v; want it deleted", secretPath, err)
	}
}
