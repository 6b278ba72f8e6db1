// Package layering checks, from `go list`, the import rules of DESIGN's layering: views never
// imports store or sandbox, harness/api imports no other exo package, store imports nothing of
// harness, app or views, sandbox nothing of harness, app or views, and the command line
// (app/cli) and the thin client (app/thin) link only the daemon's client side and api. It also
// checks that the paths README names are in the repository. Its tests need only the go command,
// not a built exo.
package layering
