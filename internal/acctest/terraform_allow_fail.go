package acctest

import (
	"context"
	"os/exec"
	"time"
)

func RunTerraformAllowFail(dir string, env []string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "terraform", args...)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.CombinedOutput()
	return string(out)
}
