//go:build tools

// Package golangci pins the golangci-lint version used by `make lint`. It
// lives in its own module so that the linters' many dependencies never leak
// into the provider or the other tools.
//
// Build it with:
//
//	cd tools/golangci && go build -o "$BIN/golangci-lint" github.com/golangci/golangci-lint/v2/cmd/golangci-lint
package golangci

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
)
