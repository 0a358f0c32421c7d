package acctest

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"
)

// NomadProxy starts an HTTP server in front of the test agent
// (NOMAD_ADDR) for the test's life and returns its address, so a test can
// watch or fail what the provider asks Nomad. intercept runs first on
// every request and answers it itself when it returns true (nil: it
// never does); modify, when set, may change Nomad's answers (they come
// uncompressed, so it can read them). The test is skipped when the agent
// is not on plain HTTP.
func NomadProxy(t *testing.T, intercept func(http.ResponseWriter, *http.Request) bool, modify func(*http.Response) error) string {
	t.Helper()
	target, err := url.Parse(os.Getenv("NOMAD_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	if target.Scheme != "http" {
		t.Skip("the proxy in front of Nomad forwards plain HTTP only")
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			if modify != nil {
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		ModifyResponse: modify,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if intercept != nil && intercept(w, r) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
