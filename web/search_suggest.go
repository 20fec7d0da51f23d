package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// maxSuggestions is how many suggestions the box lists at most.
const maxSuggestions = 8

// purchaseSuggestions serves GET /purchases/suggest?q=: what the Search box may go on
// with, as a listbox fragment. The word being typed (after the last blank) is completed:
// a field name; a status, storefront or product (by name), or a keyword after a field;
// or a saved view by name, which replaces the query with the view's.
func (s *Server) purchaseSuggestions(c *gin.Context) error {
	acct := currentAccount(c)
	ctx := c.Request.Context()
	text := c.Query("q")
	head, word := text, ""
	if i := strings.LastIndexAny(text, " \t("); i >= 0 {
		head, word = text[:i+1], text[i+1:]
	} else {
		head, word = "", text
	}
	neg := ""
	if strings.HasPrefix(word, "-") {
		neg, word = "-", word[1:]
	}
	var opts []templates.Suggestion
	add := func(value, label, kind string) {
		if len(opts) < maxSuggestions {
			opts = append(opts, templates.Suggestion{Value: value, Label: label, Kind: kind})
		}
	}
	lower := strings.ToLower(word)
	if field, rest, ok := strings.Cut(word, ":"); ok {
		// A value after a field: complete the item after the last comma.
		done, part := "", rest
		if i := strings.LastIndex(rest, ","); i >= 0 {
			done, part = rest[:i+1], rest[i+1:]
		}
		prefix := head + neg + strings.ToLower(field) + ":" + done
		part = strings.ToLower(part)
		// A record by name or by the start of its id, inserted as its id.
		named := func(id int64, name, kind string) {
			if sid := strconv.FormatInt(id, 10); strings.Contains(strings.ToLower(name), part) || strings.HasPrefix(sid, part) {
				add(prefix+sid+" ", sid+" · "+name, kind)
			}
		}
		switch search.Field(strings.ToLower(field)) {
		case search.FieldStatus:
			for _, st := range shop.PurchaseStatuses {
				if strings.HasPrefix(strings.ToLower(string(st)), part) || strings.HasPrefix(strings.ToLower(st.Label()), part) {
					add(prefix+string(st)+" ", string(st)+" · "+st.Label(), "status")
				}
			}
		case search.FieldStorefront:
			sfs, err := s.Accounts.FindStorefronts(ctx, acct.ID)
			if err != nil {
				return err
			}
			for _, sf := range sfs {
				named(sf.ID, sf.Name, "storefront")
			}
		case search.FieldProduct:
			ps, err := s.Accounts.FindProducts(ctx, acct.ID)
			if err != nil {
				return err
			}
			for _, p := range ps {
				named(p.ID, p.Name, "product")
			}
		case search.FieldShip:
			for _, v := range []string{"yes", "no"} {
				if strings.HasPrefix(v, part) {
					add(prefix+v+" ", "ship:"+v, "value")
				}
			}
		case search.FieldIs:
			for _, v := range []string{"unshipped", "shipped"} {
				if strings.HasPrefix(v, part) {
					add(prefix+v+" ", "is:"+v, "value")
				}
			}
		}
	} else if word != "" && !strings.ContainsAny(word, "<>\"") {
		for _, f := range search.Fields(search.Purchases) {
			if strings.HasPrefix(string(f.Name), lower) {
				add(head+neg+string(f.Name)+":", string(f.Name)+":", "field")
			}
		}
		if neg == "" && head == "" {
			views, err := s.Views.FindSavedViews(ctx, acct.ID, currentUser(c).ID)
			if err != nil {
				return err
			}
			for _, v := range views {
				if !strings.Contains(strings.ToLower(v.Name), lower) {
					continue
				}
				vq, _ := url.ParseQuery(purchaseViewQuery(v.Query))
				if q := vq.Get("q"); q != "" {
					add(q, "Saved view · "+v.Name, "view")
				}
			}
		}
	}
	return render(c, templates.SearchSuggestions(opts))
}
