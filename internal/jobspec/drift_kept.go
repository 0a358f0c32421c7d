package jobspec

import (
	"reflect"
	"slices"

	"github.com/hashicorp/nomad/api"
)

// notKept lists, by API type, the settings a jobspec may still write that
// Nomad 1.10 accepts and drops at registration (its conversion to its own
// types copies them nowhere): a job read back never has them, so they are
// never compared. Each was found by the oracle (Nomad's plan diff says no
// change where the comparison saw one; TestAccJob_corpusReadsBackWithoutDrift
// and TestAccJob_driftClassesFollowNomad), and a refresh asks that oracle
// before reporting drift (nomadclient.ConfirmedDrift), so a setting Nomad
// drops in a later release reads as no drift there too, for the cost of a
// plan request, until it is added here.
var notKept = map[reflect.Type][]string{
	// Under workload identity (the only Vault workflow of Nomad 1.10) a
	// task's Vault policies come from its role; Nomad keeps none.
	reflect.TypeFor[api.Vault](): {"Policies"},
	// The pre-1.8 disconnect settings, which the disconnect block
	// replaced; Nomad 1.10 ignores them, and does not fold them into it.
	reflect.TypeFor[api.TaskGroup](): {"StopAfterClientDisconnect", "MaxClientDisconnect", "PreventRescheduleOnLost"},
}

func kept(t reflect.Type, field string) bool {
	return !slices.Contains(notKept[t], field)
}

// keyedBy lists the repeated blocks without a label that are matched by a
// field of theirs instead of by position, where Nomad adds blocks of its
// own: a task's workload identities by name (Nomad adds vault_default to
// a task with a vault block, and the identities its Consul settings ask
// for). Each one the jobspec names must be in Nomad with the settings the
// jobspec gives it; those Nomad added are not drift.
var keyedBy = map[reflect.Type]string{
	reflect.TypeFor[*api.WorkloadIdentity](): "Name",
}
