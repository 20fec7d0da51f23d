package importer

import (
	"errors"
	"fmt"
	"io"

	"storefront/internal/shop"
)

// splitter reads the document's outer structure, an object whose keys name arrays,
// and cuts the arrays into raw elements without decoding them. It only tracks
// strings and nesting, which is several times faster than encoding/json's scanner;
// each element is then checked in full by the strict decoder of a worker.
type splitter struct {
	r   io.Reader
	buf []byte
	pos int   // next unread byte in buf
	end int   // end of valid bytes in buf
	off int64 // document offset of buf[0]
	err error // sticky read error
}

func newSplitter(r io.Reader) *splitter {
	return &splitter{r: r, buf: make([]byte, 256<<10)}
}

// offset is the document offset of the next unread byte.
func (s *splitter) offset() int64 { return s.off + int64(s.pos) }

// fill reads more input once buf is used up; it returns io.EOF at the end.
func (s *splitter) fill() error {
	if s.pos < s.end {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	s.off += int64(s.end)
	s.pos, s.end = 0, 0
	for s.end == 0 {
		n, err := s.r.Read(s.buf)
		s.end = n
		if err != nil && n == 0 {
			s.err = err
			return err
		}
		if err != nil {
			s.err = err // reported after these bytes
		}
	}
	return nil
}

// errEnd reports the end of the input where more was expected.
var errEnd = errors.New("the document ends early")

// readFailure is an error of the underlying reader (not the document's fault).
type readFailure struct{ err error }

func (e *readFailure) Error() string { return e.err.Error() }

func (s *splitter) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errEnd
	}
	return &readFailure{err}
}

// next returns the next byte that is not white space, without consuming it.
func (s *splitter) next() (byte, error) {
	for {
		if err := s.fill(); err != nil {
			return 0, s.readErr(err)
		}
		for s.pos < s.end {
			switch b := s.buf[s.pos]; b {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return b, nil
			}
		}
	}
}

// expect consumes the byte want after optional white space.
func (s *splitter) expect(want byte, what string) error {
	b, err := s.next()
	if err != nil {
		return err
	}
	if b != want {
		return fmt.Errorf("expected %s at byte %d, found %q", what, s.offset(), b)
	}
	s.pos++
	return nil
}

// atEOF reports whether only white space is left.
func (s *splitter) atEOF() (bool, error) {
	_, err := s.next()
	if err == errEnd {
		return true, nil
	}
	return false, err
}

// key reads an object key and the colon after it. Keys of the outer object are
// plain words; an escape in one is refused.
func (s *splitter) key() (string, error) {
	if err := s.expect('"', "a key"); err != nil {
		return "", err
	}
	var k []byte
	for {
		if err := s.fill(); err != nil {
			return "", s.readErr(err)
		}
		for s.pos < s.end {
			b := s.buf[s.pos]
			s.pos++
			switch {
			case b == '"':
				return string(k), s.expect(':', "':'")
			case b == '\\' || b < 0x20 || len(k) > 100:
				return "", fmt.Errorf("unexpected key at byte %d", s.offset())
			}
			k = append(k, b)
		}
	}
}

// value returns a copy of the raw JSON value that starts at the next byte: an
// object, an array or a string read to its matching end, or any other literal read
// up to the next delimiter. Syntax inside the value is not checked here.
func (s *splitter) value() ([]byte, error) {
	first, err := s.next()
	if err != nil {
		return nil, err
	}
	literal := first != '{' && first != '[' && first != '"'
	out := make([]byte, 0, 1024)
	depth := 0
	inString, escaped := false, false
	for {
		if err := s.fill(); err != nil {
			return nil, s.readErr(err)
		}
		chunk := s.buf[s.pos:s.end]
		for i, b := range chunk {
			if literal {
				switch b {
				case ',', ']', '}', ' ', '\t', '\n', '\r':
					out = append(out, chunk[:i]...)
					s.pos += i
					return out, nil
				}
				continue
			}
			if inString {
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
					if depth == 0 { // a string on its own
						out = append(out, chunk[:i+1]...)
						s.pos += i + 1
						return out, nil
					}
				}
				continue
			}
			switch b {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					out = append(out, chunk[:i+1]...)
					s.pos += i + 1
					return out, nil
				}
			}
		}
		out = append(out, chunk...)
		s.pos = s.end
	}
}

// split walks the document and emits its records in chunks of up to size; a chunk
// carrying an error is the last. emit returns false to stop early.
func split(r io.Reader, size int, emit func(*chunk) bool) {
	s := newSplitter(r)
	fail := func(c *chunk, err error) {
		if c == nil {
			c = &chunk{}
		}
		c.err = err
		emit(c)
	}
	where := func(at string, err error) error {
		var se *shop.Error
		var rf *readFailure
		switch {
		case err == errEnd:
			return docError("%s: the document ends early (truncated at byte %d)", at, s.offset())
		case errors.As(err, &se):
			return err
		case errors.As(err, &rf):
			return fmt.Errorf("import: read %s: %w", at, rf.err)
		}
		return docError("%s: %v", at, err)
	}
	if err := s.expect('{', "an object"); err != nil {
		fail(nil, where("the document", err))
		return
	}
	for first := true; ; first = false {
		b, err := s.next()
		if err != nil {
			fail(nil, where("the document", err))
			return
		}
		if b == '}' {
			s.pos++
			break
		}
		if !first {
			if err := s.expect(',', "',' or '}'"); err != nil {
				fail(nil, where("the document", err))
				return
			}
		}
		key, err := s.key()
		if err != nil {
			fail(nil, where("the document", err))
			return
		}
		parse := kinds[key]
		if parse == nil {
			fail(nil, docError("unknown top-level key %q (want accounts, storefronts, subscribers or purchases)", key))
			return
		}
		if b, err := s.next(); err != nil || b != '[' {
			if err == nil {
				err = fmt.Errorf("expected an array at byte %d, found %q", s.offset(), b)
			}
			fail(nil, where(key, err))
			return
		}
		s.pos++
		c := &chunk{kind: key, parse: parse}
		for i := 0; ; i++ {
			b, err := s.next()
			if err != nil {
				fail(c, where(fmt.Sprintf("%s[%d]", key, i), err))
				return
			}
			if b == ']' {
				s.pos++
				break
			}
			if i > 0 {
				if err := s.expect(',', "',' or ']'"); err != nil {
					fail(c, where(fmt.Sprintf("%s[%d]", key, i), err))
					return
				}
			}
			raw, err := s.value()
			if err != nil {
				fail(c, where(fmt.Sprintf("%s[%d]", key, i), err))
				return
			}
			c.raws = append(c.raws, raw)
			if len(c.raws) == size {
				if !emit(c) {
					return
				}
				c = &chunk{kind: key, parse: parse, first: i + 1}
			}
		}
		c.endOfArray = true
		if !emit(c) {
			return
		}
	}
	if eof, err := s.atEOF(); err != nil || !eof {
		if err == nil {
			err = docError("unexpected data after the end of the document (byte %d)", s.offset())
		}
		fail(nil, where("the document", err))
	}
}
