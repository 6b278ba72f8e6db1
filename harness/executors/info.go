package executors

import "exo/harness/api"

// Info is what `exo doctor` shows of an executor (api.ExecutorInfo).
type Info = api.ExecutorInfo
