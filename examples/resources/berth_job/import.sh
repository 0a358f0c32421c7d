# By job ID (namespace/name, or just name in the provider's namespace). The
# job as Nomad holds it becomes the jobspec, in JSON: replace it with your
# HCL2 jobspec, and the next apply registers it only if it differs.
terraform import berth_job.shop default/shop
