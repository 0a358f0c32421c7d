package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestSilenceUnreadLogs(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		silence bool
	}{
		{"nothing set", []string{"PATH=/bin", "HOME=/root"}, true},
		{"empty TF_LOG", []string{"TF_LOG="}, true},
		{"core logs only", []string{"TF_LOG_CORE=trace", "TF_LOG_PATH=/tmp/x"}, true},
		{"TF_LOG", []string{"TF_LOG=info"}, false},
		{"TF_LOG off is still the user's choice", []string{"TF_LOG=off"}, false},
		{"provider logs", []string{"TF_LOG_PROVIDER=debug"}, false},
		{"this provider's logs", []string{"TF_LOG_PROVIDER_BERTH=trace"}, false},
		{"SDK logs", []string{"TF_LOG_SDK_FRAMEWORK=trace"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]string{}
			got := silenceUnreadLogs(tc.environ, func(k, v string) error { set[k] = v; return nil })
			if got != tc.silence {
				t.Fatalf("silenced = %v, want %v", got, tc.silence)
			}
			want := map[string]string{}
			if tc.silence {
				for _, k := range sdkLogLevelVars {
					want[k] = "off"
				}
			}
			if !maps.Equal(set, want) {
				t.Fatalf("set %v, want %v", set, want)
			}
		})
	}
}

// terraform-plugin-go sets berth's own logger's level from
// TF_LOG_PROVIDER_<the address's type, upper case, "-" as "_">; a name
// that drifts from the address would leave it at TRACE.
func TestProviderLogLevelVarFollowsAddress(t *testing.T) {
	typ := providerAddress[strings.LastIndex(providerAddress, "/")+1:]
	if want := "TF_LOG_PROVIDER_" + strings.ToUpper(strings.ReplaceAll(typ, "-", "_")); providerLogLevelVar != want {
		t.Fatalf("providerLogLevelVar %q, want %q", providerLogLevelVar, want)
	}
	if !slices.Contains(sdkLogLevelVars, providerLogLevelVar) {
		t.Fatalf("%s is not silenced", providerLogLevelVar)
	}
}
