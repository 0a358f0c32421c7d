package variable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// replyDropper is a reverse proxy in front of the test agent that, once
// armed, lets Nomad carry out the first write (PUT) of one Variable and
// every request to it after that until disarmed, and drops the connection
// instead of relaying each answer: the write is committed, its reply lost,
// and berth's read-back lost too, so the apply ends not knowing.
type replyDropper struct {
	URL     string
	prefix  string
	armed   atomic.Bool
	tripped atomic.Bool
	dropped atomic.Int32
}

func startReplyDropper(t *testing.T, target, varPath string) *replyDropper {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	d := &replyDropper{prefix: "/v1/var/" + varPath}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) },
		Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
			resp, err := base.RoundTrip(req)
			if req.URL.Path == d.prefix && req.Method == http.MethodPut && d.armed.Load() {
				d.tripped.Store(true)
			}
			if !d.tripped.Load() || !d.armed.Load() || req.URL.Path != d.prefix {
				return resp, err
			}
			if err == nil {
				resp.Body.Close()
			}
			d.dropped.Add(1)
			return nil, errors.New("reply dropped")
		}),
		ErrorHandler: func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) },
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return d
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

const faultSecret = "S3CRET-fault-7f3a"

func faultConfig(addr, path string, withSecret bool) string {
	wo := `{ token = "t-1" }`
	if withSecret {
		wo = fmt.Sprintf(`{ token = "t-1", db_pass = %q }`, faultSecret)
	}
	return fmt.Sprintf(`
provider "berth" {
  address = %q
}

resource "berth_variable" "v" {
  path             = %q
  items            = { a = "1" }
  items_wo         = %s
  items_wo_version = %d
}`, addr, path, wo, map[bool]int{false: 1, true: 2}[withSecret])
}

// noSecretOnDisk fails if the secret is in any state file or backup of dir.
func noSecretOnDisk(t *testing.T, dir, what string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "terraform.tfstate*"))
	if len(files) == 0 {
		t.Fatalf("%s: no state file in %s", what, dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), faultSecret) {
			t.Fatalf("%s: %s holds the write-only value", what, filepath.Base(f))
		}
	}
}

// planHolds plans, saves the plan, and reports whether its JSON or the
// CLI output holds the secret; it returns the plan's JSON for checks.
func planHolds(ctx context.Context, t *testing.T, c *acctest.TFCLI, what string) string {
	t.Helper()
	pf := filepath.Join(c.Dir, "check.tfplan")
	if _, err := c.TF.Plan(ctx, tfexec.Reattach(c.Reattach), tfexec.Out(pf)); err != nil {
		t.Fatalf("%s: plan: %v\n%s", what, err, c.Out.Take())
	}
	out := c.Out.Take()
	human, err := c.TF.ShowPlanFileRaw(ctx, pf, tfexec.Reattach(c.Reattach))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.TF.ShowPlanFile(ctx, pf, tfexec.Reattach(c.Reattach))
	if err != nil {
		t.Fatal(err)
	}
	// The configuration section quotes main.tf, where the test wrote the
	// secret literally; berth's part is the values and changes.
	b, err := json.Marshal([]any{plan.PriorState, plan.PlannedValues, plan.ResourceChanges, plan.ResourceDrift})
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	c.Out.Take() // the JSON of show quotes main.tf, where the test wrote the secret
	if strings.Contains(js, faultSecret) || strings.Contains(human, faultSecret) || strings.Contains(out, faultSecret) {
		for name, text := range map[string]string{"values": js, "shown": human, "output": out} {
			if i := strings.Index(text, faultSecret); i >= 0 {
				t.Errorf("%s: the plan's %s hold the write-only value: ...%s...", what, name, text[max(0, i-300):i])
			}
		}
		t.FailNow()
	}
	return js
}

// TestAccVariable_lostReplyKeepsSecretOut: an update that adds a
// write-only key is committed by Nomad but its reply (and berth's
// read-back) is lost. The state, its backup and the next plan never hold
// the new value: the refresh records the key with its value withheld and
// the plan writes the Variable again. An import of the same Variable
// stores no value either.
func TestAccVariable_lostReplyKeepsSecretOut(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	path := "berth-acc/fault-" + acctest.RandomHex(3)
	proxy := startReplyDropper(t, os.Getenv("NOMAD_ADDR"), path)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() { deleteVar(t, "default", path) })

	c := acctest.NewTFCLI(t)
	c.Init(ctx, faultConfig(proxy.URL, path, false))
	c.MustApply(ctx, "create")

	c.Write(faultConfig(proxy.URL, path, true))
	proxy.armed.Store(true)
	_, err := c.Apply(ctx)
	proxy.armed.Store(false)
	out := c.Out.Take()
	if proxy.dropped.Load() == 0 {
		t.Fatalf("no reply was dropped; apply error %v\n%s", err, out)
	}
	if err == nil {
		t.Fatalf("the apply whose replies were lost succeeded:\n%s", out)
	}
	if strings.Contains(out, faultSecret) {
		t.Fatal("the failed apply's output holds the write-only value")
	}
	v := readVar(t, "default", path)
	if v == nil || v.Items["db_pass"] != faultSecret {
		t.Fatalf("Nomad did not commit the write whose reply was lost (keys %v)", keysOf(v))
	}
	noSecretOnDisk(t, c.Dir, "after the lost reply")
	js := planHolds(ctx, t, c, "plan after the lost reply")
	if !strings.Contains(js, `"items_wo_keys":["db_pass","token"]`) || !strings.Contains(js, `"items_wo_in_sync":false`) {
		t.Fatalf("the refreshed state the plan starts from does not record db_pass by key and a write berth "+
			"cannot vouch for: %s", js)
	}
	c.MustApply(ctx, "converge")
	noSecretOnDisk(t, c.Dir, "after converging")
	c.ExpectEmptyPlan(ctx, "after converging")
	if err := checkItems(t, "default", path, map[string]string{"a": "1", "token": "t-1", "db_pass": faultSecret})(nil); err != nil {
		t.Fatal(err)
	}

	// Import into a fresh working directory: every value withheld.
	imp := acctest.NewTFCLI(t)
	imp.Init(ctx, faultConfig(proxy.URL, path, true))
	if err := imp.TF.Import(ctx, "berth_variable.v", "default/"+path, tfexec.Reattach(imp.Reattach)); err != nil {
		t.Fatalf("import: %v\n%s", err, imp.Out.Take())
	}
	if out := imp.Out.Take(); strings.Contains(out, faultSecret) {
		t.Fatal("the import's output holds the write-only value")
	}
	noSecretOnDisk(t, imp.Dir, "after the import")
	planHolds(ctx, t, imp, "plan after the import")
	if err := imp.TF.StateRm(ctx, "berth_variable.v"); err != nil {
		t.Fatal(err)
	}
	c.Destroy(ctx)
}
