package above

import "github.com/berthhq/terraform-provider-berth/internal/lint/nomadtypes/testdata/client"

// Tests may read Nomad's types to assert what Nomad holds.
var _ = client.GetJob()
