//go:build tools

package tools

import _ "github.com/hashicorp/nomad"
