// Package help holds the help text of every exo command, generated from app/cli's command tree
// (go generate ./app/thin/help), so that the thin exo answers `exo --help`, `exo CMD --help`,
// `exo CMD -h` and `exo help CMD` by itself, without starting the full exo (whose package
// initialisation alone takes tens of milliseconds). It links nothing but the standard library;
// app/cli's TestThinHelpMatches keeps the copy equal to what the full exo prints.
package help

//go:generate go run ./gen
