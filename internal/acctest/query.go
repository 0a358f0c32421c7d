package acctest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
)

// NewQueryCLI is a Terraform CLI for terraform query, which needs 1.14 or
// later (skipped below that), with a context that ends with the test.
func NewQueryCLI(t *testing.T) (*TFCLI, context.Context) {
	t.Helper()
	c := NewTFCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	if v, _, err := c.TF.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.14.0"))) {
		t.Skipf("terraform query needs Terraform 1.14 or later; this is %v (%v)", v, err)
	}
	return c, ctx
}

// queryResult is what `terraform query` reported.
type queryResult struct {
	Found    []string // display names
	Warnings []string
}

// RunQuery writes list as the only query file, runs `terraform query
// -generate-config-out=generated.tf` and removes the query file again.
func RunQuery(ctx context.Context, t *testing.T, c *TFCLI, list string) queryResult {
	t.Helper()
	qf := filepath.Join(c.Dir, "found.tfquery.hcl")
	if err := os.WriteFile(qf, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(qf)
	os.Remove(filepath.Join(c.Dir, "generated.tf"))
	msgs, err := c.TF.QueryJSON(ctx, tfexec.Reattach(c.Reattach), tfexec.GenerateConfigOut("generated.tf"))
	if err != nil {
		t.Fatalf("terraform query: %v\n%s", err, c.Out.Take())
	}
	var res queryResult
	for m := range msgs {
		if m.Err != nil {
			t.Fatalf("terraform query: %v\n%s", m.Err, c.Out.Take())
		}
		switch msg := m.Msg.(type) {
		case tfjson.ListResourceFoundMessage:
			res.Found = append(res.Found, msg.ListResourceFound.DisplayName)
		case tfjson.DiagnosticLogMessage:
			switch msg.Severity {
			case tfjson.DiagnosticSeverityWarning:
				res.Warnings = append(res.Warnings, msg.Summary+": "+msg.Detail)
			case tfjson.DiagnosticSeverityError:
				t.Fatalf("terraform query: %s: %s", msg.Summary, msg.Detail)
			}
		}
	}
	return res
}

// ExpectImportsOnly plans the written configuration (with generated.tf)
// and requires exactly want resource changes, each an import that changes
// nothing.
func ExpectImportsOnly(ctx context.Context, t *testing.T, c *TFCLI, want int) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(c.Dir, "generated.tf")); err == nil {
		t.Logf("generated.tf:\n%s", b)
	}
	planFile := filepath.Join(c.Dir, "import.tfplan")
	if _, err := c.TF.Plan(ctx, tfexec.Reattach(c.Reattach), tfexec.Out(planFile)); err != nil {
		t.Fatalf("plan of the generated configuration: %v\n%s", err, c.Out.Take())
	}
	plan, err := c.TF.ShowPlanFile(ctx, planFile, tfexec.Reattach(c.Reattach))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.ResourceChanges) != want {
		t.Fatalf("the generated configuration plans %d resource changes, want %d imports", len(plan.ResourceChanges), want)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Change.Importing == nil || !rc.Change.Actions.NoOp() {
			b, _ := json.MarshalIndent(rc.Change, "", "  ")
			t.Fatalf("%s: want an import with no change, got actions %v:\n%s\n%s", rc.Address, rc.Change.Actions, b, c.Out.Take())
		}
	}
}

// AdoptAgain creates what config declares, forgets it (terraform state
// rm), finds it again with list, and requires the generated configuration
// to import it with no change; then applies that import and destroys it.
func AdoptAgain(t *testing.T, config, address, list, wantFound string) {
	t.Helper()
	c, ctx := NewQueryCLI(t)
	c.Init(ctx, config)
	c.MustApply(ctx, "create")
	if err := c.TF.StateRm(ctx, address); err != nil {
		t.Fatalf("terraform state rm %s: %v\n%s", address, err, c.Out.Take())
	}
	c.Write(`provider "berth" {}`)
	res := RunQuery(ctx, t, c, list)
	if !slices.ContainsFunc(res.Found, func(s string) bool { return strings.Contains(s, wantFound) }) {
		t.Fatalf("query found %v, want one like %q; warnings %v", res.Found, wantFound, res.Warnings)
	}
	if len(res.Found) != 1 {
		t.Fatalf("query found %v, want only %q", res.Found, wantFound)
	}
	ExpectImportsOnly(ctx, t, c, 1)
	c.MustApply(ctx, "import")
	c.Destroy(ctx)
}
