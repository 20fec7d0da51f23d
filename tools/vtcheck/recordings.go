package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// statement is one recorded statement, as internal/dbtest writes it.
type statement struct {
	Query  string `json:"query"`
	SQL    string `json:"sql"`
	Kind   string `json:"kind"`
	Origin string `json:"origin"`
}

// shape is the statements of one text once argument lists are folded, sent on the
// request path or in the background (a text sent both ways is two shapes, each planned
// with arguments of its own kind: an import's insert spans accounts, a request's not).
type shape struct {
	text    string
	example string
	request bool
	origins map[string]bool

	shards int
	err    error
}

var (
	spaces   = regexp.MustCompile(`\s+`)
	argLists = regexp.MustCompile(`\?(\s*,\s*\?)+`)
	valLists = regexp.MustCompile(`\(\?\)(\s*,\s*\(\?\))+`)
)

// shapeOf folds whitespace and lists of arguments, so that a page of 3 ids and a
// page of 100 are one shape.
func shapeOf(q string) string {
	q = strings.TrimSpace(spaces.ReplaceAllString(q, " "))
	q = argLists.ReplaceAllString(q, "?")
	return valLists.ReplaceAllString(q, "(?)")
}

// readShapes reads the recordings into shapes: those sent on the request path first,
// each kind in text order.
func readShapes(files []string) ([]*shape, error) {
	byText := map[string]*shape{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var st statement
			if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			text := shapeOf(st.Query)
			request := st.Kind == "request"
			key := st.Kind + "\x00" + text
			s := byText[key]
			if s == nil {
				s = &shape{text: text, example: st.SQL, request: request, origins: map[string]bool{}}
				byText[key] = s
			}
			s.origins[st.Origin] = true
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	if len(byText) == 0 {
		return nil, errors.New("the recordings hold no statements")
	}
	shapes := make([]*shape, 0, len(byText))
	for _, s := range byText {
		shapes = append(shapes, s)
	}
	sort.Slice(shapes, func(i, j int) bool {
		if shapes[i].request != shapes[j].request {
			return shapes[i].request
		}
		return shapes[i].text < shapes[j].text
	})
	return shapes, nil
}
