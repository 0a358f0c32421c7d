# Register a directory that already exists on a node (a disk mounted there,
# data restored from a backup) so jobs can claim it as host volume
# "pgdata". Destroy deregisters it; the directory and its data stay.
resource "berth_host_volume_registration" "pgdata" {
  name      = "pgdata"
  node_id   = "5b5a1d6c-8a7e-4c1e-9f6b-2f3a4b5c6d7e"
  host_path = "/srv/pgdata"
  capacity  = "100GiB"

  capabilities = [
    { access_mode = "single-node-writer", attachment_mode = "file-system" },
  ]
}
