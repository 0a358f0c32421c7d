package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/berthhq/terraform-provider-berth/internal/provider"
)

// Set by goreleaser at release time.
var (
	version = "dev"
	commit  = "none"
)

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	tuneGC()
	stopProfile, err := startProfile()
	if err != nil {
		log.Fatalf("berth provider: %v", err)
	}
	err = providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/berthhq/berth",
		Debug:   debug,
	})
	stopProfile()
	if err != nil {
		log.Fatalf("berth provider (version %s, commit %s): %v", version, commit, err)
	}
}
