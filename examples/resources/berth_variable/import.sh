# By "<namespace>/<path>", or by the path alone (namespace "default").
# Every item is imported as a plain item; move secret ones to items_wo.
terraform import berth_variable.web default/nomad/jobs/web
terraform import berth_variable.web nomad/jobs/web
