package seed

// FormatMinorForTest exposes formatMinor to the external tests.
var FormatMinorForTest = formatMinor
