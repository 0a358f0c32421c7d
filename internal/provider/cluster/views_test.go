package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// expectOneError plans config with the real Terraform CLI and requires
// the plan to fail with exactly one error, whose text has every one of
// want (the attribute's line, Nomad's words).
func expectOneError(t *testing.T, config string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cli := acctest.NewTFCLI(t)
	cli.Init(ctx, config)
	_, err := cli.TF.Plan(ctx, tfexec.Reattach(cli.Reattach))
	out := cli.Out.Take()
	if err == nil {
		t.Fatalf("the plan succeeded:\n%s", out)
	}
	diags := acctest.DiagnosticsOf(out + "\n" + err.Error())
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("the plan gave %d errors, want 1:\n%s", n, diags)
	}
	for _, w := range want {
		if !strings.Contains(diags, w) {
			t.Errorf("the error does not say %q:\n%s", w, diags)
		}
	}
}
