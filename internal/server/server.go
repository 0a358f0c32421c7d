// Package server is the tfprotov6 server berth serves: the framework's
// server of the provider (internal/provider), wrapped so that every RPC
// masks the provider's secrets (masked_server.go), and so that the plans
// of unchanged instances and jobs and of new instances, the refreshes of
// unchanged instances and the upgrades of states already at their
// schema's version are answered without the framework's passes
// (unchanged_plan_shortcut.go, create_plan_shortcut.go,
// unchanged_read_shortcut.go, upgrade_state_shortcut.go), each checked
// against the framework in verify mode. It imports the provider root and the families whose
// schemas and hooks the shortcuts read; only main and the test packages'
// TestMain import it (make lint checks, .golangci.yml).
package server

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	berth "github.com/berthhq/terraform-provider-berth/internal/provider"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewServer returns the protocol 6 server berth serves: the framework's,
// with the plans of unchanged instances and jobs, the refreshes of
// unchanged instances and the plans of new ones answered without its plan
// and read passes
// (unchanged_plan_shortcut.go, create_plan_shortcut.go,
// unchanged_read_shortcut.go).
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return newServer(version, false)
}

// NewVerifyingServer is NewServer in verify mode (below). It is for tests:
// each test package's TestMain hands it to acctest.Run.
func NewVerifyingServer(version string) func() (tfprotov6.ProviderServer, error) {
	return newServer(version, true)
}

// newServer is NewServer; with verify, the framework also plans and reads
// every instance the shortcuts answer, and a difference is an error (tests).
func newServer(version string, verify bool) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		configured := &atomic.Pointer[shared.ProviderData]{}
		p := berth.NewStoringData(version, configured)
		fw, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		full, ok := fw.(frameworkServer)
		if !ok {
			return nil, fmt.Errorf("the framework's server (%T) lacks list resources, actions or state stores", fw)
		}
		unchanged, err := newUnchangedPlans(verify)
		if err != nil {
			return nil, err
		}
		reads, err := newUnchangedReads(configured, version, verify)
		if err != nil {
			return nil, err
		}
		jobReads, err := newUnchangedJobReads(configured, version, verify)
		if err != nil {
			return nil, err
		}
		creates, err := newCreatePlans(configured, verify)
		if err != nil {
			return nil, err
		}
		// Read once: BERTH_SHORTCUTS=off sends every plan and refresh through the framework.
		unchanged.shortcuts = shortcutSwitchFrom(os.LookupEnv)
		upgrades := newUpgradeStates(p, verify)
		creates.shortcuts, reads.shortcuts, upgrades.shortcuts = unchanged.shortcuts, unchanged.shortcuts, unchanged.shortcuts
		jobReads.shortcuts = unchanged.shortcuts
		return &server{frameworkServer: full, configured: configured, unchanged: unchanged, creates: creates, reads: reads,
			jobReads: jobReads, upgrades: upgrades}, nil
	}
}

// frameworkServer is every RPC the framework's server answers. tf6server
// still finds list resources, actions and state stores by asserting these
// interfaces (deprecated only because their methods are to move into
// ProviderServer), so the wrapper must carry them.
type frameworkServer interface {
	tfprotov6.ProviderServerWithListResource //nolint:staticcheck // tf6server asserts it
	tfprotov6.ProviderServerWithActions      //nolint:staticcheck // tf6server asserts it
	tfprotov6.ProviderServerWithStateStores  //nolint:staticcheck // tf6server asserts it
}

// server answers every RPC itself, with the provider's secrets masked
// (masked_server.go), and passes it on to the framework's server.
type server struct {
	frameworkServer frameworkServer
	// configured is the provider's data once Configure ran: whose secrets
	// every RPC masks.
	configured *atomic.Pointer[shared.ProviderData]
	unchanged  *unchangedPlans
	creates    *createPlans
	reads      *unchangedReads // berth_instance's
	jobReads   *unchangedReads // berth_job's
	upgrades   *upgradeStates
}

// readsOf is the unchanged-read shortcut of typeName, nil when it has none.
func (s *server) readsOf(typeName string) *unchangedReads {
	for _, r := range []*unchangedReads{s.reads, s.jobReads} {
		if r.typeName == typeName {
			return r
		}
	}
	return nil
}

var _ frameworkServer = &server{}

// PlanResourceChange answers the plans of unchanged instances and jobs and
// of new instances itself (unchangedPlans, createPlans); the framework
// plans the rest.
func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	ctx = s.mask(ctx)
	t := s.unchanged.byType[req.TypeName]
	if t == nil {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	name, answer := "unchanged-plan", s.unchanged.answer(ctx, t, req)
	if answer != nil {
		s.unchanged.taken.Add(1)
	} else if req.TypeName == s.creates.typeName {
		if answer = s.creates.answer(ctx, req); answer != nil {
			name = "create-plan"
			s.creates.taken.Add(1)
		}
	}
	if answer == nil {
		return s.frameworkServer.PlanResourceChange(ctx, req)
	}
	if !s.unchanged.verify {
		return answer, nil
	}
	framework, err := s.frameworkServer.PlanResourceChange(ctx, req)
	if err != nil {
		return nil, err
	}
	return verifiedPlan(name, t.stateType, framework, answer), nil
}

// UpgradeResourceState answers the upgrade of a state already at its
// schema's version itself (upgradeStates); the framework upgrades the rest.
func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	ctx = s.mask(ctx)
	answer := s.upgrades.answer(ctx, req)
	if answer == nil {
		return s.frameworkServer.UpgradeResourceState(ctx, req)
	}
	s.upgrades.taken.Add(1)
	if !s.upgrades.verify {
		return answer, nil
	}
	framework, err := s.frameworkServer.UpgradeResourceState(ctx, req)
	if err != nil {
		return nil, err
	}
	return verifiedUpgrade(s.upgrades.typeOf(req.TypeName).stateType, framework, answer), nil
}

// ReadResource answers the refresh of an unchanged instance or job itself
// (unchangedReads) and records what each full read of one saw.
func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	ctx = s.mask(ctx)
	reads := s.readsOf(req.TypeName)
	if reads == nil {
		return s.frameworkServer.ReadResource(ctx, req)
	}
	answer := reads.answer(ctx, req)
	if answer != nil {
		reads.taken.Add(1)
		if !reads.verify {
			return answer, nil
		}
	}
	resp, err := s.frameworkServer.ReadResource(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	reads.recordRead(ctx, req, resp)
	if answer != nil {
		return reads.verifiedAnswer(resp, answer), nil
	}
	return resp, nil
}

// ApplyResourceChange records what an instance's or job's apply left once
// a full read agrees with it, so the next refresh of an unchanged job
// takes the read shortcut.
func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	ctx = s.mask(ctx)
	reads := s.readsOf(req.TypeName)
	if reads == nil {
		return s.frameworkServer.ApplyResourceChange(ctx, req)
	}
	ctx, applied := shared.WithAppliedJob(ctx)
	resp, err := s.frameworkServer.ApplyResourceChange(ctx, req)
	if err == nil && resp != nil {
		reads.recordApplied(ctx, s.frameworkServer.ReadResource, req, resp, applied)
	}
	return resp, err
}
