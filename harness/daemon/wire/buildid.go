package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"exo/harness/relay"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// FullBuild is stamped into exo-daemon's build (app/daemon) with the Go build id of the exo-full
// built with it: go build -ldflags "-X exo/harness/daemon/wire.FullBuild=$(go tool buildid
// exo-full)". The daemon binary then answers with exo-full's id, the one exo-full and the thin
// exo compare, so one build's three binaries pair and another build's do not. Empty elsewhere.
var FullBuild string

// ExpectBuildEnv names, to a daemon a client starts from another binary (exo-daemon beside
// exo-full), the build the client pairs with: a daemon of another build says so (OtherBuild)
// and exits, and the client runs the daemon itself.
const ExpectBuildEnv = "EXO_DAEMON_EXPECT_BUILD"

// OtherBuild is the line a daemon started with ExpectBuildEnv reports instead of "ready" when
// it is of another build.
const OtherBuild = "other-build"

// BuildID identifies this exo binary: FullBuild when stamped (its last part, as a thin client
// reads exo-full's), else the Go build id from its ELF note (unique per build of different
// code), else a hash of the build information. Daemon and client compare it.
var BuildID = sync.OnceValue(func() string {
	if FullBuild != "" {
		return FullBuild[strings.LastIndexByte(FullBuild, '/')+1:]
	}
	if id := elfBuildID(); id != "" {
		return id
	}
	sum := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		sum.Write([]byte(bi.String()))
	}
	return hex.EncodeToString(sum.Sum(nil))[:24]
})

// BuildTime says when this exo was made, to tell which of two builds is the newer: the commit
// time the Go toolchain recorded (vcs.time) when the build's tree was clean, else the
// executable's modification time (a build of uncommitted changes is newer than its commit).
var BuildTime = sync.OnceValue(func() time.Time {
	if at, ok := vcsTime(); ok {
		return at
	}
	exe, err := os.Executable()
	if err != nil {
		return time.Time{}
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime().UTC()
})

// vcsTime returns the commit time of a build from a clean tree.
func vcsTime() (time.Time, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return time.Time{}, false
	}
	var at time.Time
	modified := true
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.time":
			at, _ = time.Parse(time.RFC3339, s.Value)
		case "vcs.modified":
			modified = s.Value != "false"
		}
	}
	return at.UTC(), !at.IsZero() && !modified
}

// elfBuildID reads the Go build id of this executable (see relay.ExecutableBuildID): the same
// id a thin client reads from the full exo it pairs with.
func elfBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return relay.ExecutableBuildID(exe)
}
