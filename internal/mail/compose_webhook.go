package mail

import (
	"fmt"
	"strings"
)

// ComposeWebhookDisabled writes the e-mail to an account's owners when one of its
// webhook endpoints was disabled because every attempt failed for three days
// (docs/WEBHOOKS.md).
func ComposeWebhookDisabled(endpointID int64, endpointURL, reason, baseURL string) (subject, textBody string) {
	subject = Subject(fmt.Sprintf("Webhook endpoint %d was disabled", endpointID))
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	var b strings.Builder
	fmt.Fprintf(&b, "Hello,\n\nstorefront disabled the webhook endpoint %d of your account:\n\n  %s\n\n", endpointID, oneLine(endpointURL))
	fmt.Fprintf(&b, "%s Events are no longer sent to it; those that were waiting are marked failed.\n\n", reason)
	fmt.Fprintf(&b, "Once the receiver answers again, enable the endpoint and resend the deliveries you need:\n%s/webhooks\n", base)
	return subject, b.String()
}
