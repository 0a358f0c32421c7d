package nomadclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Nomad's scheduler algorithms (SchedulerConfiguration.SchedulerAlgorithm).
const (
	SchedulerAlgorithmBinpack = string(api.SchedulerAlgorithmBinpack)
	SchedulerAlgorithmSpread  = string(api.SchedulerAlgorithmSpread)
)

// SchedulerAlgorithms are the algorithms Nomad accepts.
var SchedulerAlgorithms = []string{SchedulerAlgorithmBinpack, SchedulerAlgorithmSpread}

// SchedulerSettings is the region's scheduler configuration
// (/v1/operator/scheduler/configuration), every field Nomad 1.10 holds
// apart from its Raft indexes.
type SchedulerSettings struct {
	// Algorithm is binpack or spread (Nomad's "" reads as binpack, which
	// is what its scheduler does with it).
	Algorithm string
	// Preemption is whether each scheduler may evict lower-priority work.
	Preemption Preemption
	// MemoryOversubscription lets tasks use memory_max above their memory.
	MemoryOversubscription bool
	// RejectJobRegistration refuses job registrations, dispatches and
	// scaling, except with a management token.
	RejectJobRegistration bool
	// PauseEvalBroker stops the leader's evaluation broker: nothing is
	// scheduled until it is unpaused.
	PauseEvalBroker bool
}

// Preemption is PreemptionConfig: preemption per scheduler (job type).
type Preemption struct {
	System, SysBatch, Batch, Service bool
}

// NomadDefaultSchedulerSettings is what a Nomad 1.10 server starts with
// when its agent configuration sets no default_scheduler_config.
var NomadDefaultSchedulerSettings = SchedulerSettings{
	Algorithm:  SchedulerAlgorithmBinpack,
	Preemption: Preemption{System: true},
}

// Changes names the fields in which s and o differ, as "field: s -> o".
func (s SchedulerSettings) Changes(o SchedulerSettings) []string {
	var out []string
	add := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %v -> %v", name, a, b))
		}
	}
	add("scheduler_algorithm", s.Algorithm, o.Algorithm)
	add("preemption.system", s.Preemption.System, o.Preemption.System)
	add("preemption.sysbatch", s.Preemption.SysBatch, o.Preemption.SysBatch)
	add("preemption.batch", s.Preemption.Batch, o.Preemption.Batch)
	add("preemption.service", s.Preemption.Service, o.Preemption.Service)
	add("memory_oversubscription", s.MemoryOversubscription, o.MemoryOversubscription)
	add("reject_job_registration", s.RejectJobRegistration, o.RejectJobRegistration)
	add("pause_eval_broker", s.PauseEvalBroker, o.PauseEvalBroker)
	return out
}

func schedulerSettingsFromAPI(c *api.SchedulerConfiguration) SchedulerSettings {
	alg := string(c.SchedulerAlgorithm)
	if alg == "" {
		alg = SchedulerAlgorithmBinpack
	}
	p := c.PreemptionConfig
	return SchedulerSettings{
		Algorithm: alg,
		Preemption: Preemption{System: p.SystemSchedulerEnabled, SysBatch: p.SysBatchSchedulerEnabled,
			Batch: p.BatchSchedulerEnabled, Service: p.ServiceSchedulerEnabled},
		MemoryOversubscription: c.MemoryOversubscriptionEnabled,
		RejectJobRegistration:  c.RejectJobRegistration,
		PauseEvalBroker:        c.PauseEvalBroker,
	}
}

func (s SchedulerSettings) toAPI(index uint64) *api.SchedulerConfiguration {
	return &api.SchedulerConfiguration{
		SchedulerAlgorithm: api.SchedulerAlgorithm(s.Algorithm),
		PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: s.Preemption.System,
			SysBatchSchedulerEnabled: s.Preemption.SysBatch, BatchSchedulerEnabled: s.Preemption.Batch,
			ServiceSchedulerEnabled: s.Preemption.Service},
		MemoryOversubscriptionEnabled: s.MemoryOversubscription,
		RejectJobRegistration:         s.RejectJobRegistration,
		PauseEvalBroker:               s.PauseEvalBroker,
		ModifyIndex:                   index,
	}
}

// GetSchedulerSettings reads the scheduler configuration and the Raft
// index it was last written at (the check-and-set index of the next
// write).
func (c *Client) GetSchedulerSettings(ctx context.Context) (SchedulerSettings, uint64, error) {
	resp, err := readRetry(ctx, c, "read scheduler configuration", func(ctx context.Context) (*api.SchedulerConfigurationResponse, error) {
		out, _, err := c.api.Operator().SchedulerGetConfiguration(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return SchedulerSettings{}, 0, fmt.Errorf("reading the scheduler configuration: %w", err)
	}
	if resp == nil || resp.SchedulerConfig == nil {
		return SchedulerSettings{}, 0, fmt.Errorf("reading the scheduler configuration: Nomad answered without one (no leader yet?)")
	}
	return schedulerSettingsFromAPI(resp.SchedulerConfig), resp.SchedulerConfig.ModifyIndex, nil
}

// SchedulerSettingsChangedError says a check-and-set write was refused:
// the configuration is no longer at the index berth read it at.
type SchedulerSettingsChangedError struct {
	// Index is the index the write expected; Now and NowIndex what Nomad
	// holds (NowIndex 0 when it could not be read).
	Index    uint64
	Now      SchedulerSettings
	NowIndex uint64
}

func (e *SchedulerSettingsChangedError) Error() string {
	return fmt.Sprintf("the scheduler configuration was written by someone else after berth read it (berth read it at "+
		"index %d, Nomad now holds it at index %d)", e.Index, e.NowIndex)
}

// WriteSchedulerSettings writes s with check-and-set on index, the index
// berth read the configuration at, and returns the configuration's new
// index (0 when it could not be read back). A write Nomad refuses because the index moved returns
// *SchedulerSettingsChangedError, unless what Nomad now holds is s itself
// (an earlier try whose answer was lost): check-and-set makes the write
// safe to retry.
func (c *Client) WriteSchedulerSettings(ctx context.Context, s SchedulerSettings, index uint64) (uint64, error) {
	updated, err := retry(ctx, c.retry, "write scheduler configuration", func(ctx context.Context, _ int) (bool, bool, error) {
		out, _, err := c.api.Operator().SchedulerCASConfiguration(s.toAPI(index), c.write(ctx, ""))
		if err != nil {
			return false, isRetryable(err) || isTimeout(err), err
		}
		return out.Updated, false, nil
	})
	if err != nil {
		return 0, fmt.Errorf("writing the scheduler configuration: %w", c.writeError(err))
	}
	now, nowIndex, rerr := c.GetSchedulerSettings(ctx)
	switch {
	case rerr != nil && updated:
		return 0, nil // written; the new index is read at the next refresh
	case rerr != nil:
		return 0, &SchedulerSettingsChangedError{Index: index}
	case !updated && len(s.Changes(now)) > 0:
		return 0, &SchedulerSettingsChangedError{Index: index, Now: now, NowIndex: nowIndex}
	}
	return nowIndex, nil
}

// Region is the region berth's requests go to: the provider's region, or
// the region of the agent it talks to.
func (c *Client) Region(ctx context.Context) (string, error) {
	if c.region != "" {
		return c.region, nil
	}
	self, err := readRetry(ctx, c, "read agent", func(ctx context.Context) (*api.AgentSelf, error) {
		var out api.AgentSelf
		_, err := c.api.Raw().Query("/v1/agent/self", &out, c.query(ctx, nil))
		return &out, err
	})
	if err != nil {
		return "", fmt.Errorf("reading the agent's region: %w", err)
	}
	if r, ok := self.Config["Region"].(string); ok && strings.TrimSpace(r) != "" {
		return r, nil
	}
	return "", fmt.Errorf("reading the agent's region: /v1/agent/self names none")
}
