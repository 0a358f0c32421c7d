package acl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// createReadJobsPolicy writes, through Nomad's API, a policy that grants
// read on jobs in namespace (berth_acl_policy is another part's), and
// deletes it when the test ends.
func createReadJobsPolicy(t *testing.T, name, namespace string) {
	t.Helper()
	c := acctest.Nomad(t)
	p := &api.ACLPolicy{Name: name, Description: "berth acceptance test: read jobs",
		Rules: fmt.Sprintf("namespace %q {\n  policy = \"read\"\n}\n", namespace)}
	if _, err := c.ACLPolicies().Upsert(p, nil); err != nil {
		t.Fatalf("creating ACL policy %s: %v", name, err)
	}
	t.Cleanup(func() { _, _ = c.ACLPolicies().Delete(name, nil) })
}

// tokenFromState is the accessor ID of the token at addr in s.
func tokenFromState(s *terraform.State, addr string) (string, error) {
	return idIn(addr, "accessor_id")(s)
}

// checkToken reads the token at addr from Nomad and requires its name
// and policies.
func checkToken(t *testing.T, addr, name string, policies ...string) func(*terraform.State) error {
	return checkInNomad("ACL token", idIn(addr, "accessor_id"), acctest.Nomad(t).ACLTokens().Info,
		func(_ *terraform.State, accessor string, tok *api.ACLToken) error {
			got := slices.Clone(tok.Policies)
			slices.Sort(got)
			slices.Sort(policies)
			if tok.Name != name || !slices.Equal(got, policies) {
				return fmt.Errorf("token %s in Nomad: name %q policies %v; want %q %v", accessor, tok.Name, got, name, policies)
			}
			return nil
		})
}

// secretInVariable reads the secret berth wrote for the token at addr and
// requires it to be the token's.
func secretInVariable(t *testing.T, addr, path string) (string, error) {
	c := acctest.Nomad(t)
	v, _, err := c.Variables().Read(path, nil)
	if err != nil {
		return "", fmt.Errorf("reading the secret Variable %s: %v", path, err)
	}
	secret := v.Items["secret_id"]
	self, _, err := c.ACLTokens().Info(v.Items["accessor_id"], nil)
	if err != nil {
		return "", fmt.Errorf("the Variable names accessor %q, which Nomad cannot read: %v", v.Items["accessor_id"], err)
	}
	if self.SecretID != secret {
		return "", errors.New("the Variable's secret_id is not the token's secret")
	}
	return secret, nil
}

// checkVariableHoldsSecret requires the Variable at path to hold the
// secret of the token at addr.
func checkVariableHoldsSecret(t *testing.T, addr, path string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		accessor, err := tokenFromState(s, addr)
		if err != nil {
			return err
		}
		v, _, err := acctest.Nomad(t).Variables().Read(path, nil)
		if err != nil {
			return fmt.Errorf("reading the secret Variable %s: %v", path, err)
		}
		if v.Items["accessor_id"] != accessor {
			return fmt.Errorf("the Variable %s names accessor %q, want %q", path, v.Items["accessor_id"], accessor)
		}
		_, err = secretInVariable(t, addr, path)
		return err
	}
}

// checkTokenGone requires that Nomad has no token accessor and no
// Variable at path.
func checkTokenGone(t *testing.T, accessor *string, path string) func(*terraform.State) error {
	return func(*terraform.State) error {
		c := acctest.Nomad(t)
		if *accessor != "" {
			if tok, _, err := c.ACLTokens().Info(*accessor, nil); err == nil {
				return fmt.Errorf("token %s is still in Nomad: %s", *accessor, tok.Name)
			} else if !strings.Contains(err.Error(), "404") {
				return fmt.Errorf("reading token %s: %v", *accessor, err)
			}
		}
		if path != "" {
			if _, _, err := c.Variables().Read(path, nil); !errors.Is(err, api.ErrVariablePathNotFound) && !acctest.IsNotFound(err) {
				return fmt.Errorf("the secret Variable %s after destroy: %v; want it deleted", path, err)
			}
		}
		return nil
	}
}

// checkEnforced requires that secret can read jobs in namespace and is
// refused registering one there.
func checkEnforced(t *testing.T, secret, namespace string) error {
	cfg := api.DefaultConfig()
	cfg.SecretID = secret
	cfg.Namespace = namespace
	c, err := api.NewClient(cfg)
	if err != nil {
		return err
	}
	if _, _, err := c.Jobs().List(nil); err != nil {
		return fmt.Errorf("the token may not list jobs in %s: %v", namespace, err)
	}
	job := api.NewBatchJob("berth-acc-acl-denied-"+acctest.RandomHex(3), "denied", "global", 50)
	job.Namespace = &namespace
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	_, _, err = c.Jobs().Register(job, nil)
	if err == nil {
		_, _, _ = acctest.Nomad(t).Jobs().Deregister(*job.ID, true, nil)
		return errors.New("the read-only token registered a job")
	}
	if !strings.Contains(err.Error(), "403") {
		return fmt.Errorf("registering a job with the read-only token: %v; want 403 Permission denied", err)
	}
	return nil
}

// checkSecretRefused requires Nomad to refuse secret.
func checkSecretRefused(secret string) error {
	cfg := api.DefaultConfig()
	cfg.SecretID = secret
	c, err := api.NewClient(cfg)
	if err != nil {
		return err
	}
	if _, _, err := c.ACLTokens().Self(nil); err == nil {
		return errors.New("Nomad still accepts the token")
	} else if !strings.Contains(err.Error(), "403") && !strings.Contains(err.Error(), "not found") {
		return fmt.Errorf("asking Nomad about the token: %v; want it refused", err)
	}
	return nil
}
