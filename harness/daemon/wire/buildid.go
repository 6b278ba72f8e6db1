package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"exo/harness/relay"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// BuildID identifies this exo binary: the Go build id from its ELF note (unique per build of
// different code), else a hash of the build information. Daemon and client compare it.
var BuildID = sync.OnceValue(func() string {
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
