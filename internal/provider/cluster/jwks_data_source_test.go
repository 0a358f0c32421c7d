package cluster

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJWKSDataSource_asNomadSays reads the cluster's workload identity
// keys and compares each with /.well-known/jwks.json as Nomad serves it:
// key IDs, algorithms, and the PEM key's modulus and exponent.
func TestAccJWKSDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	const ds = "data.berth_jwks.k"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `data "berth_jwks" "k" {}`,
			Check: func(s *terraform.State) error {
				var set struct {
					Keys []struct{ Kid, Kty, Alg, Use, N, E string }
				}
				if _, err := acctest.Nomad(t).Raw().Query("/.well-known/jwks.json", &set, nil); err != nil {
					return err
				}
				if len(set.Keys) == 0 {
					return fmt.Errorf("Nomad serves no workload identity keys")
				}
				attrs := s.RootModule().Resources[ds].Primary.Attributes
				if attrs["keys.#"] != fmt.Sprint(len(set.Keys)) {
					return fmt.Errorf("keys.# = %s, Nomad serves %d", attrs["keys.#"], len(set.Keys))
				}
				for _, k := range set.Keys {
					i := -1
					for j := range len(set.Keys) {
						if attrs[fmt.Sprintf("keys.%d.key_id", j)] == k.Kid {
							i = j
						}
					}
					if i < 0 {
						return fmt.Errorf("key %s is not in the data source", k.Kid)
					}
					at := func(a string) string { return attrs[fmt.Sprintf("keys.%d.%s", i, a)] }
					if at("algorithm") != k.Alg || at("key_type") != k.Kty || at("use") != k.Use {
						return fmt.Errorf("key %s: %s/%s/%s, Nomad says %s/%s/%s", k.Kid, at("algorithm"), at("key_type"), at("use"), k.Alg, k.Kty, k.Use)
					}
					if k.Kty != "RSA" {
						continue
					}
					block, _ := pem.Decode([]byte(at("public_key_pem")))
					if block == nil {
						return fmt.Errorf("key %s: public_key_pem is not PEM", k.Kid)
					}
					pub, err := x509.ParsePKIXPublicKey(block.Bytes)
					if err != nil {
						return fmt.Errorf("key %s: %v", k.Kid, err)
					}
					n, _ := base64.RawURLEncoding.DecodeString(k.N)
					e, _ := base64.RawURLEncoding.DecodeString(k.E)
					rk, ok := pub.(*rsa.PublicKey)
					if !ok || rk.N.Cmp(new(big.Int).SetBytes(n)) != 0 || int64(rk.E) != new(big.Int).SetBytes(e).Int64() {
						return fmt.Errorf("key %s: the PEM key is not Nomad's", k.Kid)
					}
				}
				return nil
			},
		}},
	})
}
