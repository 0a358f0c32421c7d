package main

import (
	"strings"
)

// providerLogLevelVar sets the level of berth's own logger (tflog):
// terraform-plugin-go reads TF_LOG_PROVIDER_<type> for it, not
// TF_LOG_PROVIDER, and logs at TRACE without it.
const providerLogLevelVar = "TF_LOG_PROVIDER_BERTH"

// sdkLogLevelVars set the level of each logger the plugin writes through
// terraform-plugin-log: berth's own (tflog) and the SDK's.
var sdkLogLevelVars = []string{"TF_LOG_PROVIDER", providerLogLevelVar, "TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"}

// silenceUnreadLogs turns the plugin's loggers off when no one asked for
// provider logs. terraform-plugin-log logs at TRACE when its variables are
// unset, and Terraform reads and parses every line the plugin writes only
// to discard it: with a fleet of resources that is most of a plan's CPU.
// When TF_LOG, or any TF_LOG_PROVIDER* / TF_LOG_SDK* variable, is set
// (Terraform and OpenTofu pass their environment to the plugin), nothing
// changes and every line is written as before. It reports whether it
// silenced the logs.
func silenceUnreadLogs(environ []string, setenv func(key, value string) error) bool {
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		if value == "" {
			continue
		}
		if key == "TF_LOG" || strings.HasPrefix(key, "TF_LOG_PROVIDER") || strings.HasPrefix(key, "TF_LOG_SDK") {
			return false
		}
	}
	for _, key := range sdkLogLevelVars {
		if err := setenv(key, "off"); err != nil {
			return false
		}
	}
	return true
}
