package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/berthhq/terraform-provider-berth/internal/server"
)

// providerAddress is the address berth serves as.
const providerAddress = "registry.terraform.io/berthhq/berth"

// Set by goreleaser at release time.
var (
	version = "dev"
	commit  = "none"
)

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	// Before tf6server.Serve creates the loggers from the environment.
	silenceUnreadLogs(os.Environ(), os.Setenv)
	tuneGC()
	stopProfile, err := startProfile()
	if err != nil {
		log.Fatalf("berth provider: %v", err)
	}
	ps, err := server.NewServer(version)()
	if err != nil {
		log.Fatalf("berth provider: %v", err)
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	err = tf6server.Serve(providerAddress, func() tfprotov6.ProviderServer { return ps }, opts...)
	stopProfile()
	if err != nil {
		log.Fatalf("berth provider (version %s, commit %s): %v", version, commit, err)
	}
}
