package server

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// TestMaskedServer_everyRPC calls every RPC of frameworkServer, found by
// reflection, on the server newServer builds, with a framework server that
// logs the provider's token, a header value and the address's password:
// none may reach the log unmasked. server embeds nothing (checked first),
// so each RPC it has is one it defines itself; an RPC added to the
// interface must be written, masked, in masked_server.go.
func TestMaskedServer_everyRPC(t *testing.T) {
	t.Parallel()
	secrets := []string{"tok-3f9a7c11-mask", "hdr-5e1b0d42-mask", "pw-8c2e6f93-mask"}
	client, err := nomadclient.New(nomadclient.Config{
		Address: "http://berth:" + secrets[2] + "@127.0.0.1:4646",
		Token:   secrets[0],
		Headers: map[string]string{"Authorization": "Bearer " + secrets[1]},
	})
	if err != nil {
		t.Fatal(err)
	}
	built, err := newServer("test", false)()
	if err != nil {
		t.Fatal(err)
	}
	srv, ok := built.(*server)
	if !ok {
		t.Fatalf("newServer built a %T, want *server", built)
	}
	for i := range reflect.TypeFor[server]().NumField() {
		if f := reflect.TypeFor[server]().Field(i); f.Anonymous {
			t.Errorf("server embeds %s, whose RPCs it would pass on unmasked: name the field and write each RPC in masked_server.go", f.Name)
		}
	}
	srv.frameworkServer = leakyServer{secrets: secrets}
	srv.configured.Store(&shared.ProviderData{Nomad: client})

	rpcs := reflect.TypeFor[frameworkServer]()
	if rpcs.NumMethod() < 30 {
		t.Fatalf("frameworkServer has %d methods; the enumeration found too few to be the protocol", rpcs.NumMethod())
	}
	for i := range rpcs.NumMethod() {
		rpc := rpcs.Method(i)
		var buf bytes.Buffer
		ctx := tflogtest.RootLogger(context.Background(), &buf)
		method := reflect.ValueOf(srv).MethodByName(rpc.Name)
		if !method.IsValid() {
			t.Errorf("%s: server does not answer it", rpc.Name)
			continue
		}
		req := reflect.New(rpc.Type.In(1).Elem()) // a zero request
		out := method.Call([]reflect.Value{reflect.ValueOf(ctx), req})
		if errV := out[len(out)-1]; !errV.IsNil() {
			t.Errorf("%s: %v", rpc.Name, errV.Interface())
		}
		logged := buf.String()
		if !strings.Contains(logged, "rpc "+rpc.Name+" logs") {
			t.Errorf("%s: the framework server was not called (log: %q)", rpc.Name, logged)
			continue
		}
		for _, secret := range secrets {
			if strings.Contains(logged, secret) {
				t.Errorf("%s: a secret reached the log unmasked; mask the context in server.%s (masked_server.go):\n%s",
					rpc.Name, rpc.Name, logged)
				break
			}
		}
	}
}

// Before Configure there are no secrets to mask: every RPC still reaches
// the framework.
func TestMaskedServer_beforeConfigure(t *testing.T) {
	t.Parallel()
	built, err := newServer("test", false)()
	if err != nil {
		t.Fatal(err)
	}
	srv := built.(*server)
	srv.frameworkServer = leakyServer{secrets: []string{"nothing-configured"}}
	var buf bytes.Buffer
	if _, err := srv.ValidateProviderConfig(tflogtest.RootLogger(context.Background(), &buf), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "rpc ValidateProviderConfig logs nothing-configured") {
		t.Errorf("log: %q", buf.String())
	}
}
