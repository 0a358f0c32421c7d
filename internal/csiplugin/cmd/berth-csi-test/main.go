// Command berth-csi-test runs berth's test CSI plugin (internal/csiplugin)
// on a unix socket until SIGINT or SIGTERM. Nomad hands the socket path to
// a plugin task in CSI_ENDPOINT, the default of -endpoint.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"

	"github.com/berthhq/terraform-provider-berth/internal/csiplugin"
)

func main() {
	host, _ := os.Hostname()
	endpoint := flag.String("endpoint", os.Getenv("CSI_ENDPOINT"), "unix socket to serve on: unix:///path/csi.sock (default $CSI_ENDPOINT)")
	baseDir := flag.String("base-dir", "", "directory holding one directory per volume (required)")
	name := flag.String("name", "berth.test.csi", "plugin name reported by GetPluginInfo")
	nodeID := flag.String("node-id", host, "node ID reported by NodeGetInfo")
	staging := flag.Bool("staging", false, "advertise STAGE_UNSTAGE_VOLUME and stage before publishing")
	flag.Parse()

	if err := run(*endpoint, csiplugin.Config{Name: *name, BaseDir: *baseDir, NodeID: *nodeID, Staging: *staging}); err != nil {
		fmt.Fprintln(os.Stderr, "berth-csi-test:", err)
		os.Exit(1)
	}
}

func run(endpoint string, cfg csiplugin.Config) error {
	p, err := csiplugin.New(cfg)
	if err != nil {
		return err
	}
	l, path, err := csiplugin.Listen(endpoint)
	if err != nil {
		return err
	}
	defer os.Remove(path)

	s := grpc.NewServer()
	p.Register(s)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		log.Printf("berth-csi-test: %s, stopping", sig)
		s.GracefulStop()
	}()
	log.Printf("berth-csi-test: serving %s (base dir %s, node %s, staging %v)", path, cfg.BaseDir, cfg.NodeID, cfg.Staging)
	return s.Serve(l)
}
