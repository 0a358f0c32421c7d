package server

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// echoingImports is a framework server whose import echoes the import ID
// in a log line and in its diagnostics, as an error from Nomad could.
type echoingImports struct{ leakyServer }

func (echoingImports) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	tflog.Debug(ctx, "Nomad API request", map[string]any{"path": "/v1/acl/token/" + req.ID})
	tflog.Info(ctx, "importing "+req.ID)
	return &tfprotov6.ImportResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Cannot import " + req.ID,
		Detail:   "reading ACL token " + req.ID + ": Unexpected response code: 500",
	}}}, nil
}

// TestMaskedServer_importID: the import ID of berth_acl_token and
// berth_acl_bootstrap (an accessor ID; a pasted secret would be one) never
// reaches a log line or a diagnostic; other types' import IDs (a job's
// name) are left as they are.
func TestMaskedServer_importID(t *testing.T) {
	t.Parallel()
	const id = "5b1e0c1d-8f2a-4c6e-9d3b-7a4f2e1c9b80"
	built, err := newServer("test", false)()
	if err != nil {
		t.Fatal(err)
	}
	srv := built.(*server)
	srv.frameworkServer = echoingImports{}
	for _, tc := range []struct {
		typ    string
		masked bool
	}{{"berth_acl_token", true}, {"berth_acl_bootstrap", true}, {"berth_job", false}} {
		var buf bytes.Buffer
		ctx := tflogtest.RootLogger(context.Background(), &buf)
		resp, err := srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: tc.typ, ID: id})
		if err != nil || resp == nil || len(resp.Diagnostics) != 1 {
			t.Fatalf("%s: %v %+v", tc.typ, err, resp)
		}
		shown := buf.String() + resp.Diagnostics[0].Summary + "\n" + resp.Diagnostics[0].Detail
		if strings.Contains(shown, id) == tc.masked {
			t.Errorf("%s: import ID masked is %v, want %v:\n%s", tc.typ, !tc.masked, tc.masked, shown)
		}
		if tc.masked && !strings.Contains(resp.Diagnostics[0].Detail, "reading ACL token ***: ") {
			t.Errorf("%s: the diagnostic lost its text around the ID: %q", tc.typ, resp.Diagnostics[0].Detail)
		}
	}
}
