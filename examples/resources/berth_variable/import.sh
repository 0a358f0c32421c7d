# By "<namespace>/<path>", or by the path alone (namespace "default").
# No value is imported: every key is recorded in items_wo_keys until the
# configuration gives it in items (plain) or items_wo (write-only).
terraform import berth_variable.web default/nomad/jobs/web
terraform import berth_variable.web nomad/jobs/web
