# Terraform 1.12 and later: import by identity, the region's name.
import {
  to = berth_scheduler_settings.this
  identity = {
    region = "global"
  }
}
