package views

import "exo/views/plaintext"

// Plural writes a count with its noun, singular for one and plural otherwise (see
// plaintext.Plural, which it is).
func Plural(n int, noun string) string { return plaintext.Plural(n, noun) }

// agree picks the words that agree with a count: one for 1, many otherwise ("1 file returns",
// "2 files return").
func agree(n int, one, many string) string {
	if n == 1 || n == -1 {
		return one
	}
	return many
}
