package daemon

import (
	"sync"

	"exo/harness/api"
)

// openAPIDoc is the API's OpenAPI document, built once from api's method table.
var openAPIDoc = sync.OnceValues(api.OpenAPIDocument)

// openAPI returns the API's OpenAPI document.
func openAPI() (map[string]any, error) { return openAPIDoc() }
