package secrets

import "exo/harness/api"

// Info is what may be shown about a secret: never its value (api.SecretInfo).
type Info = api.SecretInfo
