package migration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccMigrationMoved_oneOfEachFromNomad moves a configuration that holds one
// resource of every type berth takes over from hashicorp/nomad, written
// and applied by hashicorp/nomad 2.6.1, to berth with the guide's moved
// blocks: the plan does nothing to any of them, no object changes in Nomad
// (each keeps its modify index), no secret of the other provider's state
// lands in berth's, the next plan is empty, and destroy removes them all.
func TestAccMigrationMoved_oneOfEachFromNomad(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	acctest.PeerProvider(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	plugin.RunOutside(t, nomad)
	p := "berth-acc-mig-" + acctest.RandomHex(3)
	n := names{
		Prefix: p, Namespace: p, Pool: p, Policy: p + "-read", Role: p + "-ops", Token: p + "-ci", Method: p + "-jwt",
		Variable: "berth-acc/" + p, HostVolume: p + "-scratch", HostReg: p + "-data", CSIVolume: p + "-disk",
		CSIReg: p + "-existing", Job: p + "-app", Node: acctest.ReadyNodeID(t), Plugin: plugin.ID,
		ExternalID: "existing-" + acctest.RandomHex(3), Key: publicKeyPEM(t), CSISecret: "berth-mig-csi-" + acctest.RandomHex(4),
	}
	n.HostPath = hostDir(t)
	plugin.MakeVolumeDir(t, n.ExternalID)
	peer, moved := expand(peerConfig, n), expand(movedConfig, n)

	objects := objectsOf(nomad, n)
	before := map[string]uint64{}
	var tokenSecret string
	noop := make([]plancheck.PlanCheck, 0, len(movedAddrs))
	for _, addr := range movedAddrs {
		noop = append(noop, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkAllGone(objects),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(s *terraform.State) error {
					objects.learnIDs(s)
					tokenSecret = s.RootModule().Resources["nomad_acl_token.ci"].Primary.Attributes["secret_id"]
					if len(tokenSecret) < 32 {
						return fmt.Errorf("nomad_acl_token recorded no secret (the secret check would prove nothing)")
					}
					return objects.indexes(before)
				},
			},
			{
				Config:           moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: noop},
				Check: func(s *terraform.State) error {
					after := map[string]uint64{}
					if err := objects.indexes(after); err != nil {
						return err
					}
					var changed []string
					for what, i := range before {
						if after[what] != i {
							changed = append(changed, fmt.Sprintf("%s (modify index %d -> %d)", what, i, after[what]))
						}
					}
					sort.Strings(changed)
					if len(changed) > 0 {
						return fmt.Errorf("the move changed objects in Nomad: %s", strings.Join(changed, ", "))
					}
					for addr, r := range s.RootModule().Resources {
						for k, v := range r.Primary.Attributes {
							if strings.Contains(v, tokenSecret) || strings.Contains(v, n.CSISecret) {
								return fmt.Errorf("a secret of the other provider's state moved into berth's state at %s.%s", addr, k)
							}
						}
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
	})
}

// hostDir is a directory with data in it, for the host volume registration.
func hostDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "existing")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("data that outlives the move\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// objects reads each moved object's modify index from Nomad. IDs Nomad
// chose (the token's accessor, the host volumes') come from the other
// provider's state after the first step.
type objects struct {
	nomad                      *api.Client
	n                          names
	accessor, hostVol, hostReg string
}

func objectsOf(nomad *api.Client, n names) *objects { return &objects{nomad: nomad, n: n} }

func (o *objects) learnIDs(s *terraform.State) {
	id := func(addr string) string { return s.RootModule().Resources[addr].Primary.ID }
	o.accessor = s.RootModule().Resources["nomad_acl_token.ci"].Primary.Attributes["accessor_id"]
	o.hostVol, o.hostReg = id("nomad_dynamic_host_volume.scratch"), id("nomad_dynamic_host_volume_registration.data")
}

// indexes fills into with every object's modify index, by what it is.
func (o *objects) indexes(into map[string]uint64) error {
	c := o.nomad
	reads := map[string]func() (uint64, error){
		"namespace " + o.n.Namespace: func() (uint64, error) {
			v, _, err := c.Namespaces().Info(o.n.Namespace, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"node pool " + o.n.Pool: func() (uint64, error) {
			v, _, err := c.NodePools().Info(o.n.Pool, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"ACL policy " + o.n.Policy: func() (uint64, error) {
			v, _, err := c.ACLPolicies().Info(o.n.Policy, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"ACL role " + o.n.Role: func() (uint64, error) {
			v, _, err := c.ACLRoles().GetByName(o.n.Role, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"ACL token " + o.n.Token: func() (uint64, error) {
			v, _, err := c.ACLTokens().Info(o.accessor, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"ACL auth method " + o.n.Method: func() (uint64, error) {
			v, _, err := c.ACLAuthMethods().Get(o.n.Method, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"the binding rule of " + o.n.Method: func() (uint64, error) {
			rules, _, err := c.ACLBindingRules().List(nil)
			if err != nil {
				return 0, err
			}
			for _, r := range rules {
				if r.AuthMethod == o.n.Method {
					return r.ModifyIndex, nil
				}
			}
			return 0, fmt.Errorf("no binding rule of %q in Nomad", o.n.Method)
		},
		"variable " + o.n.Variable: func() (uint64, error) {
			v, _, err := c.Variables().Read(o.n.Variable, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"scheduler configuration": func() (uint64, error) {
			v, _, err := c.Operator().SchedulerGetConfiguration(nil)
			if err != nil || v == nil || v.SchedulerConfig == nil {
				return 0, fmt.Errorf("reading the scheduler configuration: %v", err)
			}
			return v.SchedulerConfig.ModifyIndex, nil
		},
		"host volume " + o.n.HostVolume: func() (uint64, error) {
			v, _, err := c.HostVolumes().Get(o.hostVol, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"host volume registration " + o.n.HostReg: func() (uint64, error) {
			v, _, err := c.HostVolumes().Get(o.hostReg, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"CSI volume " + o.n.CSIVolume: func() (uint64, error) {
			v, _, err := c.CSIVolumes().Info(o.n.CSIVolume, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"CSI volume registration " + o.n.CSIReg: func() (uint64, error) {
			v, _, err := c.CSIVolumes().Info(o.n.CSIReg, nil)
			return index(v, err, func() uint64 { return v.ModifyIndex })
		},
		"job " + o.n.Job: func() (uint64, error) {
			v, _, err := c.Jobs().Info(o.n.Job, nil)
			return index(v, err, func() uint64 { return *v.JobModifyIndex })
		},
	}
	for what, read := range reads {
		i, err := read()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		into[what] = i
	}
	return nil
}

// index is the modify index of v, read by get, when Nomad answered.
func index[T any](v *T, err error, get func() uint64) (uint64, error) {
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, fmt.Errorf("not in Nomad")
	}
	return get(), nil
}

// checkAllGone requires that destroy removed every object (the scheduler
// configuration stays: Nomad always has one).
func checkAllGone(o *objects) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := o.nomad
		var left []string
		if v, _, err := c.Namespaces().Info(o.n.Namespace, nil); err == nil && v != nil {
			left = append(left, "namespace")
		}
		if v, _, err := c.NodePools().Info(o.n.Pool, nil); err == nil && v != nil {
			left = append(left, "node pool")
		}
		if v, _, err := c.ACLPolicies().Info(o.n.Policy, nil); err == nil && v != nil {
			left = append(left, "ACL policy")
		}
		if v, _, err := c.ACLRoles().GetByName(o.n.Role, nil); err == nil && v != nil {
			left = append(left, "ACL role")
		}
		if v, _, err := c.ACLTokens().Info(o.accessor, nil); err == nil && v != nil {
			left = append(left, "ACL token")
		}
		if v, _, err := c.ACLAuthMethods().Get(o.n.Method, nil); err == nil && v != nil {
			left = append(left, "ACL auth method")
		}
		if rules, _, err := c.ACLBindingRules().List(nil); err == nil {
			for _, r := range rules {
				if r.AuthMethod == o.n.Method {
					left = append(left, "ACL binding rule")
				}
			}
		}
		if v, _, err := c.Variables().Read(o.n.Variable, nil); err == nil && v != nil {
			left = append(left, "variable")
		}
		if v, _, err := c.HostVolumes().Get(o.hostVol, nil); err == nil && v != nil {
			left = append(left, "host volume")
		}
		if v, _, err := c.HostVolumes().Get(o.hostReg, nil); err == nil && v != nil {
			left = append(left, "host volume registration")
		}
		if v, _, err := c.CSIVolumes().Info(o.n.CSIVolume, nil); err == nil && v != nil {
			left = append(left, "CSI volume")
		}
		if v, _, err := c.CSIVolumes().Info(o.n.CSIReg, nil); err == nil && v != nil {
			left = append(left, "CSI volume registration")
		}
		if v, _, err := c.Jobs().Info(o.n.Job, nil); err == nil && v != nil && (v.Stop == nil || !*v.Stop) {
			left = append(left, "job")
		}
		if len(left) > 0 {
			return fmt.Errorf("destroy left in Nomad: %s", strings.Join(left, ", "))
		}
		return nil
	}
}
