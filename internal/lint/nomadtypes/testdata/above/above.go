// Package above stands for internal/provider: it must not.
package above

import "github.com/berthhq/terraform-provider-berth/internal/lint/nomadtypes/testdata/client"

func usesAlias() string {
	var j *client.Job = client.GetJob() // line 7: an alias
	return *j.ID
}

func usesResult() int {
	return len(client.Allocs()) // line 12: a value returned by the client
}

func clean() string {
	return client.Summarize().ID
}
