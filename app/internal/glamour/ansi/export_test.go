package ansi

// FormatToken is formatToken, for the tests of package ansi_test (which may import styles).
var FormatToken = formatToken
