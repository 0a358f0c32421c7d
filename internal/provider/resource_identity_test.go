package provider_test

import (
	"context"
	"sort"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/berthhq/terraform-provider-berth/internal/provider"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// withoutIdentity are the resources that have no identity, and why: each
// is one object per cluster (or per provider), so there is nothing to
// name. Every other resource must have one.
var withoutIdentity = map[string]string{
	"berth_acl_bootstrap": "the cluster's one ACL bootstrap",
}

// TestResources_identityRecordedByTheInterceptor: every resource but the
// ones above has an identity, and it is the interceptor's (the resource
// embeds shared.WithIdentity), so no resource records, or forgets to
// record, its identity by hand. A new resource without one fails here,
// naming it.
func TestResources_identityRecordedByTheInterceptor(t *testing.T) {
	ctx := context.Background()
	p := provider.New("test")()
	var meta fwprovider.MetadataResponse
	p.Metadata(ctx, fwprovider.MetadataRequest{}, &meta)
	seen := map[string]bool{}
	for _, build := range p.Resources(ctx) {
		r := build()
		var m resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
		seen[m.TypeName] = true
		_, identified := r.(resource.ResourceWithIdentity)
		intercepted := shared.Unwrap(r) != r
		why, exempt := withoutIdentity[m.TypeName]
		switch {
		case exempt && identified:
			t.Errorf("%s has an identity now: drop it from withoutIdentity (%q)", m.TypeName, why)
		case exempt:
		case !identified:
			t.Errorf("%s has no identity: embed shared.WithIdentity (or, if it is one object per cluster, list it in withoutIdentity with the reason)", m.TypeName)
		case !intercepted:
			t.Errorf("%s answers IdentitySchema by itself: embed shared.WithIdentity so the interceptor records its identity", m.TypeName)
		}
	}
	var stale []string
	for name := range withoutIdentity {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("withoutIdentity names resources the provider does not have: %v", stale)
	}
}
