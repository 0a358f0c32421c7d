package shared

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"syscall"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// statusErr returns the error the Nomad API client gives for an answer
// with status code (from a fake server: only the error shape matters).
func statusErr(t *testing.T, code int) error { return statusBodyErr(t, code, "fake failure") }

func statusBodyErr(t *testing.T, code int, body string) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, body, code)
	}))
	defer srv.Close()
	c, err := api.NewClient(&api.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Jobs().Register(&api.Job{ID: ptrOf("j")}, nil)
	if err == nil {
		t.Fatalf("status %d gave no error", code)
	}
	return err
}

func ptrOf[T any](v T) *T { return &v }

func TestOutcomeUnknown(t *testing.T) {
	wrap := func(err error) error {
		return &nomadclient.ConnectError{Address: "http://127.0.0.1:4646", Err: &url.Error{Op: "Put", URL: "http://127.0.0.1:4646/v1/jobs", Err: err}}
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused: nothing was sent", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), false},
		{"reset after sending", wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true},
		{"connection closed without an answer", wrap(io.EOF), true},
		{"deadline", fmt.Errorf("registering: %w", context.DeadlineExceeded), true},
		{"500 no leader", statusErr(t, 500), true},
		{"400 invalid job", statusErr(t, 400), false},
		{"409 conflict", statusErr(t, 409), false},
		{"other error", errors.New("boom"), true},
	} {
		if got := nomadclient.OutcomeUnknown(tc.err); got != tc.want {
			t.Errorf("%s: OutcomeUnknown(%v) = %t, want %t", tc.name, tc.err, got, tc.want)
		}
	}
}
