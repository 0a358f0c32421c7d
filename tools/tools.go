//go:build tools

// Package tools pins the versions of the command-line tools used to build
// the provider's documentation. It is a separate module so that the tools'
// dependencies never end up in the provider's own go.mod.
//
// Build a tool with, for example:
//
//	cd tools && go build -o ../bin/tfplugindocs github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs
package tools

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
