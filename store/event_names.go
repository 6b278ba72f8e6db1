package store

// An event stored as it is (encoding version 3) names its type and actor by their place in the
// vocabulary's names instead of spelling them out: a long session has tens of thousands of small
// events (a step's start, a model request), and the two strings were a third of each. A string
// that is not among the names is spelled out.

// appendName appends a name as its place in the codec's names plus one, or as 0 and the string.
func (c *Codec) appendName(buf []byte, s string) []byte {
	if i, ok := c.index[s]; ok {
		return appendUvarint(buf, i)
	}
	return appendString(appendUvarint(buf, 0), s)
}

// name reads what appendName wrote: a name not in the vocabulary interned in a (nil: copied).
func (c *Codec) name(r *reader, a *arena) string {
	i := r.uvarint()
	switch {
	case r.err != nil:
		return ""
	case i == 0:
		b := r.bytes()
		if a != nil {
			return a.name(b)
		}
		return string(b)
	case i > uint64(len(c.names)):
		r.err = errUnknownName
		return ""
	}
	return c.names[i-1]
}
