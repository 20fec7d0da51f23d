package web

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// routes registers every route: the JSON API (docs/API.md#routes), the sign-in pages,
// and the dashboard for signed-in users, whose account pages only owners reach. Every
// handler returns its error to the one adapter, handle.
func (s *Server) routes(r *gin.Engine) {
	h := s.handle
	api := r.Group("/api/v2")
	api.GET("", h(s.ping))
	api.GET("/", h(s.ping))
	api.GET("/openapi.json", h(s.openAPI))
	apiPurchases := api.Group("/purchases")
	apiPurchases.GET("", h(s.listPurchases))
	apiPurchases.GET("/:id", h(s.getPurchase))
	apiPurchases.POST("/:id/reactivate", h(s.reactivate))
	apiSubscribers := api.Group("/storefronts/:storefront_id/subscribers")
	apiSubscribers.GET("", h(s.listSubscribers))
	apiSubscribers.GET("/verify", h(s.verifySubscriber))
	apiSubscribers.GET("/:id", h(s.getSubscriber))

	r.GET("/healthz", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })
	r.GET("/static/*path", h(staticFiles()))
	r.GET("/favicon.ico", favicon)
	r.GET("/login", h(s.loginPage))
	r.POST("/login", h(s.login))
	r.POST("/logout", h(s.logout))

	d := r.Group("/", s.requireUser)
	d.GET("/", h(s.overviewPage))
	d.GET("/docs/api", h(s.apiDocs))
	purchases := d.Group("/purchases")
	purchases.GET("", h(s.purchasesPage))
	purchases.GET("/:id", h(s.purchasePage))
	purchases.GET("/:id/activity", h(s.purchaseActivity))
	purchases.POST("/:id/reactivate", h(s.reactivatePurchase))
	purchases.GET("/reactivate", h(s.reactivateSelected))
	purchases.POST("/views", h(s.saveView))
	purchases.POST("/views/:view/rename", h(s.renameView))
	purchases.POST("/views/:view/move", h(s.moveView))
	purchases.POST("/views/:view/delete", h(s.deleteView))
	jobs := d.Group("/jobs")
	jobs.GET("", h(s.jobsPage))
	jobs.POST("", h(s.createJob))
	jobs.GET("/:job", h(s.jobPage))
	jobs.GET("/:job/progress", h(s.jobProgress))
	jobs.POST("/:job/cancel", h(s.cancelJob))
	d.GET("/subscribers", h(s.subscribersHome))
	subscribers := d.Group("/storefronts/:storefront_id/subscribers")
	subscribers.GET("", h(s.subscribersPage))
	subscribers.GET("/:id", h(s.subscriberPage))
	account := d.Group("/account")
	account.GET("/password", h(s.passwordPage))
	account.POST("/password", h(s.changePassword))
	owner := account.Group("", s.requireOwner)
	owner.GET("", h(s.accountPage))
	owner.POST("/keys", h(s.createKey))
	owner.POST("/keys/:id/revoke", h(s.revokeKey))
	owner.POST("/users", h(s.createUser))
	owner.POST("/users/:id/role", h(s.setUserRole))
	owner.POST("/users/:id/remove", h(s.removeUser))
}
