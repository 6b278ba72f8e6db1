// Package demo owns the scripted model's offline demo (demo.yaml, in the format of
// testdata/scripts/README.md), built into every exo binary that runs the harness so
// `exo model register demo --provider scripted` works from any directory.
package demo

import _ "embed" // the demo script

// Script is the demo, demo.yaml's bytes.
//
//go:embed demo.yaml
var Script []byte
