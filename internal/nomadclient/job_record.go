package nomadclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// JobRecord is a job as the berth_job data source reports it: a few
// fields typed, read from Nomad's JSON of the job by their JSON names, and
// that JSON whole, so a field berth's api structs do not know (a newer
// cluster's) is not lost.
type JobRecord struct {
	ID, Name, Namespace, Region, Type, NodePool string
	Status, StatusDescription, ParentID         string
	Datacenters                                 []string
	Priority                                    int64
	Version, CreateIndex, ModifyIndex           uint64
	JobModifyIndex                              uint64
	// SubmitTime is Unix nanoseconds.
	SubmitTime              int64
	Stop, Stable, AllAtOnce bool
	Meta                    map[string]string
	TaskGroups              []GroupRecord
	// JSON is Nomad's JSON of the job, as GET /v1/job/:id answered it.
	JSON string `json:"-"`
}

// GroupRecord is a task group of a JobRecord.
type GroupRecord struct {
	Name  string
	Count int64
	Meta  map[string]string
	Tasks []TaskRecord
}

// TaskRecord is a task of a GroupRecord.
type TaskRecord struct {
	Name, Driver string
	Meta         map[string]string
}

// ReadJobRecord reads job id in namespace ("" is the provider's); nil when
// Nomad has no such job (or the token may not see it).
func (c *Client) ReadJobRecord(ctx context.Context, namespace, id string) (*JobRecord, error) {
	if namespace == "" {
		namespace = c.namespace
	}
	raw, err := c.getJobRaw(ctx, namespace, id)
	if err != nil {
		return nil, fmt.Errorf("reading job %q in namespace %q: %w", id, namespace, err)
	}
	if raw == nil {
		return nil, nil
	}
	var rec JobRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("decoding job %q in namespace %q: %w", id, namespace, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("decoding job %q in namespace %q: %w", id, namespace, err)
	}
	rec.JSON = compact.String()
	return &rec, nil
}
