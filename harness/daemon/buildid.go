package daemon

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
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

// elfBuildID reads the .note.go.buildid section of this executable.
func elfBuildID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	data, err := s.Data()
	if err != nil || len(data) < 16 {
		return ""
	}
	namesz := binary.LittleEndian.Uint32(data[0:4])
	descsz := binary.LittleEndian.Uint32(data[4:8])
	off := 12 + (namesz+3)&^3
	if uint64(off)+uint64(descsz) > uint64(len(data)) {
		return ""
	}
	id := data[off : off+descsz]
	if i := bytes.IndexByte(id, '/'); i > 0 {
		// the id is actionID/contentID…: the last part identifies the content
		parts := bytes.Split(id, []byte("/"))
		id = parts[len(parts)-1]
	}
	return string(id)
}
