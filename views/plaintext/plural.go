package plaintext

import (
	"strconv"
	"strings"
)

// Plural writes a count with its noun, singular for one and plural otherwise: "1 file",
// "3 files", "0 tool calls", "2 branches", "1 copy" / "2 copies". noun is the singular; only
// its last word is inflected ("more line" → "more lines"). Every count exo prints with a noun
// goes through it, so none reads "1 files".
func Plural(n int, noun string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + noun
	}
	return strconv.Itoa(n) + " " + pluralNoun(noun)
}

// pluralNoun returns the plural of an English noun (of its last word): -es after s, x, z, ch
// and sh, -ies for a consonant and y, else -s.
func pluralNoun(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}
