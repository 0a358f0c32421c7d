package volume

import "github.com/hashicorp/nomad/api"

// CSISummaryFromAPI reads a CSI volume as Nomad lists it: ready while
// schedulable, as CSIFromAPI.
func CSISummaryFromAPI(s *api.CSIVolumeListStub) Summary {
	state := StateUnavailable
	if s.Schedulable {
		state = StateReady
	}
	return Summary{Namespace: s.Namespace, ID: s.ID, Name: s.Name, State: state, Type: TypeCSI}
}
