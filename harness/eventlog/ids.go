package eventlog

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// NewID returns a 16-hex-digit id that sorts by creation time (seconds) and is unique.
func NewID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%08x%s", uint32(time.Now().Unix()), hex.EncodeToString(b[:]))
}

var nameAdjectives = []string{
	"amber", "aster", "bold", "brisk", "calm", "cedar", "clear", "coral", "crisp", "dawn",
	"deep", "dusky", "eager", "early", "fair", "fern", "fleet", "gentle", "gilded", "glad",
	"golden", "green", "hazel", "hollow", "ivory", "jade", "keen", "kind", "lively", "lunar",
	"maple", "mellow", "misty", "noble", "north", "oaken", "opal", "pale", "quiet", "rapid",
	"rosy", "rustic", "sable", "silent", "silver", "slate", "solar", "steady", "still", "stone",
	"sunny", "swift", "tidal", "topaz", "umber", "vast", "velvet", "vivid", "warm", "west",
	"wild", "windy", "winter", "young",
}

var nameNouns = []string{
	"anchor", "arbor", "bay", "beacon", "birch", "bloom", "brook", "canyon", "cliff", "cloud",
	"comet", "cove", "creek", "delta", "dune", "ember", "field", "fjord", "forest", "frost",
	"garden", "glade", "grove", "harbor", "heath", "hill", "island", "lagoon", "lake", "ledge",
	"meadow", "mesa", "moor", "moss", "orchard", "peak", "pine", "prairie", "quarry", "rain",
	"reef", "ridge", "river", "shore", "sky", "spring", "star", "stream", "summit", "thicket",
	"tide", "trail", "valley", "vista", "wave", "willow", "wind", "wood", "yard", "zephyr",
	"lantern", "marsh", "ocean", "pebble",
}

// NewName returns a memorable session name such as "aster-meadow-2e0e".
func NewName() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	a := nameAdjectives[int(b[0])%len(nameAdjectives)]
	n := nameNouns[int(b[1])%len(nameNouns)]
	return fmt.Sprintf("%s-%s-%s", a, n, hex.EncodeToString(b[2:]))
}
