package web

import "github.com/gin-gonic/gin"

// Engine exposes the Gin engine to the tests, so that they can list every route.
func (s *Server) Engine() *gin.Engine { return s.engine() }
