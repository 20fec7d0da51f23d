package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"storefront/templates"
)

// routes registers every route: the JSON API (docs/API.md#routes), the sign-in pages,
// and the dashboard for signed-in users, whose account pages only owners reach. Every
// handler returns its error to the one adapter, handle.
func (s *Server) routes(r *gin.Engine) {
	h := s.handle
	// One line per resource: its routes chained on its group.
	api := r.Group("/api/v2")
	api.GET("", h(s.ping)).GET("/", h(s.ping)).GET("/openapi.json", h(s.openAPI)).
		GET("/purchases.csv", h(s.exportPurchasesAPI)).GET("/storefronts/:storefront_id/subscribers.csv", h(s.exportSubscribersAPI))
	api.GET("/audit", h(s.auditAPI))
	api.Group("/purchases").GET("", h(s.listPurchases)).GET("/:id", h(s.getPurchase)).POST("/:id/reactivate", h(s.reactivate))
	api.Group("/storefronts/:storefront_id/subscribers").
		GET("", h(s.listSubscribers)).GET("/verify", h(s.verifySubscriber)).GET("/:id", h(s.getSubscriber))
	// A customer's address may hold "/" (%2F in a link): the rest of the path is the address.
	api.GET("/customers/*email", h(s.getCustomer))

	r.GET("/healthz", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })
	r.GET("/readyz", s.readyz)
	r.GET("/static/*path", h(staticFiles()))
	r.GET("/favicon.ico", favicon)
	r.GET("/login", h(s.loginPage)).POST("/login", h(s.login)).POST("/logout", h(s.logout)).
		GET("/login/code", h(s.loginCodePage)).POST("/login/code", h(s.loginCode)).
		POST("/login/passkey/options", s.handleJSON(s.beginPasskeySignIn)).POST("/login/passkey", s.handleJSON(s.finishPasskeySignIn))

	d := r.Group("/", s.requireUser, s.requireSecondFactor)
	d.GET("/", h(s.overviewPage)).GET(templates.FindURL, h(s.findPage)).GET(templates.FindSuggestURL, h(s.findSuggestions))
	d.GET("/docs/api", h(s.apiDocs)).GET(templates.SearchHelpURL, h(s.searchHelp)).GET("/subscribers", h(s.subscribersHome)).GET(allSubscribersURL, h(s.allSubscribersPage)).GET(subscriberSuggestURL, h(s.subscriberSuggestions)).
		GET("/purchases.csv", h(s.exportPurchasesPage)).GET("/storefronts/:storefront_id/subscribers.csv", h(s.exportSubscribersPage)).
		GET(allSubscribersURL+".csv", h(s.exportAllSubscribersPage))
	d.Group("/purchases").GET("", h(s.purchasesPage)).GET("/:id", h(s.purchasePage)).
		GET("/:id/activity", h(s.purchaseActivity)).POST("/:id/reactivate", s.requireReactivator, h(s.reactivatePurchase)).
		POST("/:id/notes", h(s.addPurchaseNote)).
		GET("/reactivate", h(s.reactivateSelected)).
		GET("/suggest", h(s.purchaseSuggestions)).
		POST("/views", h(s.saveView)).POST("/views/:view/rename", h(s.renameView)).
		POST("/views/:view/move", h(s.moveView)).POST("/views/:view/delete", h(s.deleteView))
	// The rest of the path is the address (it may hold "/"); a note is posted to the
	// address followed by /notes.
	d.Group("/customers").GET("/*email", h(s.customerPage)).POST("/*email", h(s.addCustomerNote))
	d.POST("/notes/:id/delete", h(s.deleteNote))
	d.Group("/jobs").GET("", h(s.jobsPage)).POST("", h(s.createJob)).GET("/:job", h(s.jobPage)).
		GET("/:job/progress", h(s.jobProgress)).POST("/:job/cancel", h(s.cancelJob))
	d.Group("/storefronts/:storefront_id/subscribers").GET("", h(s.subscribersPage)).GET("/:id", h(s.subscriberPage))
	account := d.Group("/account")
	account.GET("/password", h(s.passwordPage)).POST("/password", h(s.changePassword))
	account.Group("/security").GET("", h(s.securityPage)).
		POST("/sessions/:id/end", h(s.endSession)).POST("/sessions/end-others", h(s.endOtherSessions)).
		GET("/authenticator", h(s.authenticatorSetupPage)).POST("/authenticator", h(s.addAuthenticator)).
		POST("/authenticator/remove", h(s.removeAuthenticator)).
		POST("/passkeys/options", s.handleJSON(s.beginPasskeyAdd)).POST("/passkeys", s.handleJSON(s.finishPasskeyAdd)).
		POST("/passkeys/:id/remove", h(s.removePasskey))
	// The audit log answers a non-owner 403 with a page of its own.
	account.GET("/audit", h(s.auditPage)).GET("/audit.csv", h(s.auditCSV))
	owner := account.Group("", s.requireOwner)
	owner.GET("", h(s.accountPage)).GET("/activity", h(s.activityPage)).POST("/two-factor", h(s.setRequireTwoFactor))
	owner.Group("/keys").POST("", h(s.createKey)).POST("/:id/revoke", h(s.revokeKey))
	owner.Group("/users").POST("", h(s.createUser)).POST("/:id/role", h(s.setUserRole)).POST("/:id/remove", h(s.removeUser))
	d.Group("/webhooks", s.requireOwner).GET("", h(s.webhooksPage)).POST("", h(s.createWebhook)).GET("/:id", h(s.webhookPage)).
		POST("/:id/enable", h(s.setWebhookEnabled(true))).POST("/:id/disable", h(s.setWebhookEnabled(false))).
		POST("/:id/rotate", h(s.rotateWebhook)).POST("/:id/test", h(s.testWebhook)).POST("/:id/delete", h(s.deleteWebhook)).
		POST("/:id/deliveries/:delivery/resend", h(s.resendWebhook))
}
