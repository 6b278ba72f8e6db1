package relay

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// ExecutableBuildID reads the Go build id from the .note.go.buildid section of the executable
// at path: its last part identifies the binary's content. It returns "" when there is none.
func ExecutableBuildID(path string) string {
	f, err := elf.Open(path)
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
	if i := bytes.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return string(id)
}
