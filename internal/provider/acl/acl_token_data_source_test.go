package acl

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const aclTokenDataAddr = "data.berth_acl_token.t"

// checkTokenDataMatchesNomad requires the data source at addr to hold what
// Nomad's API answers for the token accessor.
func checkTokenDataMatchesNomad(t *testing.T, addr, accessor string) resource.TestCheckFunc {
	return checkDataInNomad(addr, "ACL token", known(accessor), acctest.Nomad(t).ACLTokens().Info,
		func(attrs map[string]string, tok *api.ACLToken) error {
			var roles []string
			for _, r := range tok.Roles {
				roles = append(roles, r.ID)
			}
			if got := setValues(attrs, "roles"); !slices.Equal(got, sorted(roles)) {
				return fmt.Errorf("%s: roles %v in state, %v in Nomad", addr, got, sorted(roles))
			}
			if got := setValues(attrs, "policies"); !slices.Equal(got, sorted(tok.Policies)) {
				return fmt.Errorf("%s: policies %v in state, %v in Nomad", addr, got, sorted(tok.Policies))
			}
			want := map[string]string{"id": tok.AccessorID, "accessor_id": tok.AccessorID, "name": tok.Name, "type": tok.Type,
				"global": strconv.FormatBool(tok.Global), "create_time": tok.CreateTime.UTC().Format(time.RFC3339),
				"expiration_time": "", "expiration_ttl": ""}
			if tok.ExpirationTime != nil {
				want["expiration_time"] = tok.ExpirationTime.UTC().Format(time.RFC3339)
			}
			if tok.ExpirationTTL > 0 {
				ttl, err := time.ParseDuration(attrs["expiration_ttl"])
				if err != nil || ttl != tok.ExpirationTTL {
					return fmt.Errorf("%s: expiration_ttl %q in state, %s in Nomad", addr, attrs["expiration_ttl"], tok.ExpirationTTL)
				}
				delete(want, "expiration_ttl")
			}
			return compareAttrs(addr, attrs, want)
		})
}

// checkNoSecretInState requires secret to be nowhere in state.
func checkNoSecretInState(secret string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for addr, rs := range s.RootModule().Resources {
			for k, v := range rs.Primary.Attributes {
				if strings.Contains(v, secret) || strings.Contains(k, "secret") {
					return fmt.Errorf("%s holds the token's secret, or an attribute for one, at %s", addr, k)
				}
			}
		}
		return nil
	}
}

// TestAccACLTokenDataSource_noSecret reads a token made through the API
// (a policy, a role and a TTL) and compares it with what Nomad's API
// answers; its secret is nowhere in state.
func TestAccACLTokenDataSource_noSecret(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-one-"+suffix, "berth-acc-read-one-"+suffix
	createReadJobsPolicy(t, policy, "default")
	c := acctest.Nomad(t)
	role, _, err := c.ACLRoles().Create(&api.ACLRole{Name: "berth-acc-role-one-" + suffix,
		Policies: []*api.ACLRolePolicyLink{{Name: policy}}}, nil)
	if err != nil {
		t.Fatalf("creating ACL role: %v", err)
	}
	t.Cleanup(func() { _, _ = c.ACLRoles().Delete(role.ID, nil) })
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{policy},
		Roles: []*api.ACLTokenRoleLink{{ID: role.ID}}, ExpirationTTL: time.Hour}, nil)
	if err != nil {
		t.Fatalf("creating ACL token: %v", err)
	}
	t.Cleanup(func() { _, _ = c.ACLTokens().Delete(tok.AccessorID, nil) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf("data \"berth_acl_token\" \"t\" {\n  accessor_id = %q\n}\n", tok.AccessorID),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(aclTokenDataAddr, "name", name),
				resource.TestCheckResourceAttr(aclTokenDataAddr, "roles.#", "1"),
				resource.TestCheckResourceAttr(aclTokenDataAddr, "expiration_ttl", "1h"),
				checkTokenDataMatchesNomad(t, aclTokenDataAddr, tok.AccessorID),
				checkNoSecretInState(tok.SecretID),
			),
		}},
	})
}

// TestAccACLTokenDataSource_missing: an accessor ID Nomad does not have,
// and a value that is not an accessor ID, are each one error, which never
// repeats the value given (it might be a secret).
func TestAccACLTokenDataSource_missing(t *testing.T) {
	acctest.PreCheck(t)
	for _, tc := range []struct{ value, summary, detail string }{
		{"3c9e1f0a-7b2d-4e8f-a1c6-5d4b3a2f1e0d", "ACL token not found", "Nomad has no ACL token with the accessor ID given"},
		{"not-an-accessor-" + acctest.RandomHex(3), "ACL token not found", "The accessor ID given is not a UUID"},
	} {
		t.Run(tc.detail, func(t *testing.T) {
			want := errorSaying(tc.summary, tc.detail)
			var failed error
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				// ExpectError cannot say what an error must not hold. Terraform
				// quotes the configuration's line once; berth must not add
				// the value again.
				ErrorCheck: func(err error) error {
					switch {
					case strings.Count(err.Error(), tc.value) > 1:
						failed = errors.New("the error repeats the value given: " + err.Error())
					case !want.MatchString(err.Error()):
						failed = fmt.Errorf("the error does not match %s: %v", want, err)
					default:
						failed = errNone
					}
					return nil
				},
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf("data \"berth_acl_token\" \"t\" {\n  accessor_id = %q\n}\n", tc.value),
				}},
			})
			switch {
			case failed == nil:
				t.Fatal("no error; want one")
			case failed != errNone:
				t.Fatal(failed)
			}
		})
	}
}

// errNone marks the one expected error seen.
var errNone = errors.New("as expected")
