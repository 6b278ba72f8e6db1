package api

import "testing"

// TestParseBudget reads budgets as users write them and refuses what is no amount.
func TestParseBudget(t *testing.T) {
	for _, c := range []struct {
		kind, text string
		want       float64
		bad        bool
	}{
		{"tokens", "200000", 200000, false}, {"tokens", "200k", 200000, false}, {"tokens", "1.5M", 1.5e6, false},
		{"tokens", "none", 0, false}, {"tokens", "", 0, false}, {"tokens", "off", 0, false},
		{"cost", "$5", 5, false}, {"cost", "2.50", 2.5, false}, {"cost", "5k", 0, true},
		{"tokens", "-3", 0, true}, {"tokens", "NaN", 0, true}, {"tokens", "lots", 0, true}, {"tokens", "1e300", 0, true},
	} {
		got, err := ParseBudget(c.kind, c.text)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseBudget(%s, %q) = %v, %v; want %v (error %v)", c.kind, c.text, got, err, c.want, c.bad)
		}
	}
	if FormatBudget(0) != "" || FormatBudget(200000) != "200000" || FormatBudget(2.5) != "2.5" {
		t.Error("FormatBudget does not write budgets as the setting keeps them")
	}
}
