package nomadclient

import (
	"errors"
	"net/http"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func schedulerReply(s SchedulerSettings, index uint64) http.HandlerFunc {
	c := s.toAPI(index)
	return replyJSON(api.SchedulerConfigurationResponse{SchedulerConfig: c})
}

// A write is check-and-set on the index berth read: the request carries
// it, and a write Nomad refused because the configuration moved returns
// the configuration Nomad now holds.
func TestWriteSchedulerSettings_refusedWhenChanged(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	want := SchedulerSettings{Algorithm: "spread", Preemption: Preemption{System: true}}
	theirs := SchedulerSettings{Algorithm: "binpack", PauseEvalBroker: true}
	f.handle("PUT /v1/operator/scheduler/configuration", replyJSON(api.SchedulerSetConfigurationResponse{Updated: false}))
	f.handle("GET /v1/operator/scheduler/configuration", schedulerReply(theirs, 42))
	_, err := f.client().WriteSchedulerSettings(t.Context(), want, 40)
	var changed *SchedulerSettingsChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("error %v, want *SchedulerSettingsChangedError", err)
	}
	if changed.Index != 40 || changed.NowIndex != 42 || changed.Now != theirs {
		t.Errorf("changed error %+v; want index 40, now %+v at 42", changed, theirs)
	}
	puts := f.requests("/v1/operator/scheduler/configuration")
	if got := puts[0].Query.Get("cas"); puts[0].Method != http.MethodPut || got != "40" {
		t.Errorf("first request %s with cas=%q, want PUT with cas=40", puts[0].Method, got)
	}
}

// A refused write whose value Nomad already holds was berth's own earlier
// try whose answer was lost: it succeeds with Nomad's index.
func TestWriteSchedulerSettings_lostAnswerIsOurs(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	want := SchedulerSettings{Algorithm: "spread", MemoryOversubscription: true}
	f.handle("PUT /v1/operator/scheduler/configuration", replyJSON(api.SchedulerSetConfigurationResponse{Updated: false}))
	f.handle("GET /v1/operator/scheduler/configuration", schedulerReply(want, 43))
	index, err := f.client().WriteSchedulerSettings(t.Context(), want, 40)
	if err != nil || index != 43 {
		t.Fatalf("WriteSchedulerSettings = %d, %v; want 43, nil", index, err)
	}
}

// Nomad's empty algorithm is binpack, which its scheduler uses for it.
func TestGetSchedulerSettings_emptyAlgorithmIsBinpack(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/operator/scheduler/configuration", replyJSON(api.SchedulerConfigurationResponse{
		SchedulerConfig: &api.SchedulerConfiguration{ModifyIndex: 9}}))
	s, index, err := f.client().GetSchedulerSettings(t.Context())
	if err != nil || s.Algorithm != SchedulerAlgorithmBinpack || index != 9 {
		t.Fatalf("GetSchedulerSettings = %+v, %d, %v; want binpack at 9", s, index, err)
	}
}
