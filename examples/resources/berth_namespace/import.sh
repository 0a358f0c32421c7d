# By the namespace's name; "default" too (destroying it later leaves it in Nomad):
terraform import berth_namespace.payments payments
