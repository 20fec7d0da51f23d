package seed

// FormatMinorForTest exposes formatMinor to the external tests.
var FormatMinorForTest = formatMinor

// SetChunkSizes makes the following runs write purchases and subscribers in chunks of
// the given sizes, until the returned function restores the sizes.
func SetChunkSizes(purchases, subscribers int) (restore func()) {
	p, s := purchasesPerChunk, subscribersPerChunk
	purchasesPerChunk, subscribersPerChunk = purchases, subscribers
	return func() { purchasesPerChunk, subscribersPerChunk = p, s }
}

// AppendLiteral exposes appendLiteral to the external tests.
var AppendLiteral = appendLiteral
