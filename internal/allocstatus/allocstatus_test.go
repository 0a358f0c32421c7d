package allocstatus

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestLive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status string
		live   bool
	}{
		{api.AllocClientStatusPending, true},
		{api.AllocClientStatusRunning, true},
		{api.AllocClientStatusUnknown, true}, // disconnected client: may still run
		{api.AllocClientStatusComplete, false},
		{api.AllocClientStatusFailed, false},
		{api.AllocClientStatusLost, false},
		{"", true},            // not reported yet
		{"some-future", true}, // unknown to berth: assume it runs
	} {
		if got := Live(tc.status); got != tc.live {
			t.Errorf("Live(%q) = %v, want %v", tc.status, got, tc.live)
		}
	}
}

func TestLiveFilter(t *testing.T) {
	t.Parallel()
	want := `ClientStatus != "complete" and ClientStatus != "failed" and ClientStatus != "lost"`
	if got := LiveFilter(); got != want {
		t.Fatalf("LiveFilter() = %s, want %s", got, want)
	}
}

// The constants must be Nomad's own spellings.
func TestConstantsMatchNomad(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{Pending, api.AllocClientStatusPending}, {Running, api.AllocClientStatusRunning},
		{Unknown, api.AllocClientStatusUnknown}, {Complete, api.AllocClientStatusComplete},
		{Failed, api.AllocClientStatusFailed}, {Lost, api.AllocClientStatusLost},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("constant %q differs from Nomad's %q", p[0], p[1])
		}
	}
}
