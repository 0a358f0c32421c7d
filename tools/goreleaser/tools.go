//go:build tools

// Package goreleaser pins the GoReleaser version used to cut provider
// releases. It lives in its own module because GoReleaser's dependency graph
// is very large and must not leak into the provider or the other tools.
//
// Build it with:
//
//	cd tools/goreleaser && go build -o "$BIN/goreleaser" github.com/goreleaser/goreleaser/v2
package goreleaser

import (
	_ "github.com/goreleaser/goreleaser/v2"
)
