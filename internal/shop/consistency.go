package shop

import "context"

type primaryReadsKey struct{}

// WithPrimaryReads marks ctx so that the reads made with it see every write made
// before them: with a read replica, they go to the primary. The HTTP layer marks the
// requests that change data (a POST reads the purchase it is about to reactivate).
func WithPrimaryReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryReadsKey{}, true)
}

// PrimaryReads reports whether ctx was marked by WithPrimaryReads.
func PrimaryReads(ctx context.Context) bool {
	v, _ := ctx.Value(primaryReadsKey{}).(bool)
	return v
}
