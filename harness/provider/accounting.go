package provider

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// The usage fields of a stream are read only to count tokens and cost, and live services and
// the gateways in front of them send them in every shape: DeepSeek through a gateway sends
// usage.cost as an object, others send counts as floats (12.0) or strings, or null. With plain
// int64 and float64 fields, one such field failed a good answer as a malformed stream.
// acctCount and acctCost read whatever comes and never fail: what is not a number counts 0.

// acctCount is a token count read only for accounting.
type acctCount int64

// UnmarshalJSON reads a number, a numeric string or anything else (0); it never fails.
func (n *acctCount) UnmarshalJSON(b []byte) error {
	v := acctNumber(b, 0)
	if v < 0 || v > math.MaxInt64/2 || math.IsNaN(v) {
		v = 0
	}
	*n = acctCount(v)
	return nil
}

// acctCost is a price in dollars read only for accounting.
type acctCost float64

// UnmarshalJSON reads a number, a numeric string, or an object holding one (its total); anything
// else is 0. It never fails.
func (c *acctCost) UnmarshalJSON(b []byte) error {
	v := acctNumber(b, 0)
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	*c = acctCost(v)
	return nil
}

// costKeys are the names under which an object-valued cost gives its total, most specific first.
var costKeys = []string{"total_cost", "total", "cost", "amount", "usd", "value"}

// acctNumber reads the number in b: a JSON number, a string holding one, or an object holding
// one under a costKeys name (two levels deep at most). Anything else is 0.
func acctNumber(b []byte, depth int) float64 {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"':
		var s string
		if json.Unmarshal(b, &s) != nil {
			return 0
		}
		v, err := strconv.ParseFloat(string(bytes.TrimSpace([]byte(s))), 64)
		if err != nil {
			return 0
		}
		return v
	case '{':
		if depth >= 2 {
			return 0
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return 0
		}
		for _, k := range costKeys {
			if raw, ok := m[k]; ok {
				return acctNumber(raw, depth+1)
			}
		}
		return 0
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return 0
		}
		return v
	}
	return 0 // null, true, false, an array
}
