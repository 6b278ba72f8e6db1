// Package layering checks, from `go list`, the import rules of DESIGN's layering: views never
// imports store or sandbox, harness/api imports no other exo package, store imports nothing of
// harness, app or views, and sandbox nothing of harness, app or views. It also checks that the
// paths README names are in the repository. Its tests need only the go command, not a built exo.
package layering
