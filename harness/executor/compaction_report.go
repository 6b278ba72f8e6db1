package executor

import "exo/harness/api"

// CompactionReport says what a compaction check did (api.CompactionReport).
type CompactionReport = api.CompactionReport
