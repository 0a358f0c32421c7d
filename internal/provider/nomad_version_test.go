package provider_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// versionProxy forwards to a real agent and, while claim is set, rewrites
// the version in the agent's /v1/agent/self answer to it: the agent stays
// real, only the version berth reads is another.
type versionProxy struct {
	URL   string
	claim atomic.Value // string; "" passes the agent's own
	reads atomic.Int64 // version reads seen
}

func startVersionProxy(t *testing.T, target string) *versionProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &versionProxy{}
	p.claim.Store("")
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			// An answer to rewrite must come back plain, not gzipped.
			r.Out.Header.Del("Accept-Encoding")
		},
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.URL.Path != "/v1/agent/self" {
				return nil
			}
			p.reads.Add(1)
			claim, _ := p.claim.Load().(string)
			if claim == "" || resp.StatusCode != http.StatusOK {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			var self map[string]any
			if err := json.Unmarshal(body, &self); err != nil {
				return err
			}
			config, _ := self["config"].(map[string]any)
			version, _ := config["Version"].(map[string]any)
			if version == nil {
				return fmt.Errorf("the agent's answer holds no config.Version")
			}
			version["Version"] = claim
			if body, err = json.Marshal(self); err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// A cluster older than the oldest Nomad berth supports is refused on the
// first request (here the create's) with one error naming both versions, and nothing is created; the same
// configuration applies once the cluster reports a supported version.
func TestAccProvider_refusesAnOlderNomad(t *testing.T) {
	acctest.PreCheck(t)
	proxy := startVersionProxy(t, os.Getenv("NOMAD_ADDR"))
	proxy.claim.Store("1.9.7")
	name := "berth-version-" + acctest.RandomHex(3)
	cfg := fmt.Sprintf(`
provider "berth" {
  address = %q
}

resource "berth_namespace" "ns" {
  name        = %q
  description = "created only on a supported Nomad"
}
`, proxy.URL, name)
	nsExists := func() bool {
		ns, _, err := acctest.Nomad(t).Namespaces().Info(name, nil)
		return err == nil && ns != nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if nsExists() {
				return fmt.Errorf("namespace %s is still in Nomad", name)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ExpectError: regexp.MustCompile(`(?s)Unsupported\s+Nomad\s+version.*runs\s+Nomad\s+1\.9\.7.*berth\s+supports\s+Nomad\s+` +
					regexp.QuoteMeta(nomadclient.OldestSupportedNomad) + `\s+and\s+later`),
			},
			{
				// Nothing was created by the refused run.
				PreConfig: func() {
					if nsExists() {
						t.Fatalf("namespace %s was created on a cluster berth refused", name)
					}
					if proxy.reads.Load() == 0 {
						t.Fatal("berth never read the cluster's version")
					}
					proxy.claim.Store("")
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_namespace.ns", plancheck.ResourceActionCreate),
				}},
				Check: func(*terraform.State) error {
					if !nsExists() {
						return fmt.Errorf("namespace %s is not in Nomad", name)
					}
					return nil
				},
			},
		},
	})
}
