package cli

import (
	"errors"
	"regexp"
)

// strconvRE matches the strconv detail pflag leaves in a bad number's message.
var strconvRE = regexp.MustCompile(`strconv\.Parse\w+: parsing "[^"]*": (invalid syntax|value out of range)`)

// plainFlagError rewords a bad flag value's message for people: `invalid argument "abc" for
// "--from" flag: not a number` instead of quoting strconv.ParseUint.
func plainFlagError(err error) error {
	if err == nil {
		return nil
	}
	msg := strconvRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
		if strconvRE.FindStringSubmatch(m)[1] == "value out of range" {
			return "out of range"
		}
		return "not a number"
	})
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
