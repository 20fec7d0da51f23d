package strtotime

import (
	"regexp/syntax"
	"sort"
	"sync"
	"sync/atomic"
)

// The scanner mirrors re2c's semantics: at every position the longest match
// over the whole token set wins, and among rules matching the same length
// the one listed first wins. Each rule is compiled with regexp/syntax into a
// small NFA program; the programs are run side by side as one Thompson NFA
// whose subsets are turned lazily into DFA states and cached, so the hot
// path is one table look-up per input byte.
//
// Input bytes are fed to the programs as runes 0..255 (Latin-1), which keeps
// the byte-oriented behaviour of the C scanner (e.g. "µ" is the two bytes
// C2 B5 in the rule sources as in timelib's UTF-8 source file).

// maxDFAStates bounds the cache. Beyond it new states are still computed
// correctly but not remembered, so memory stays bounded on hostile input.
const maxDFAStates = 10000

// dstate is one DFA state: a sorted set of NFA threads (rule<<16 | pc) that
// wait on a rune, plus the best rule accepting at this point (-1 if none).
// Transitions are indexed by byte class rather than by byte.
type dstate struct {
	threads []uint32
	accept  int
	next    []atomic.Pointer[dstate]
}

// lazyDFA is safe for concurrent use: transitions are published with atomic
// stores, and state creation is serialised by mu.
type lazyDFA struct {
	progs  []*syntax.Prog
	mu     sync.Mutex
	states map[string]*dstate
	start  *dstate
	dead   *dstate

	// Bytes that every rule treats alike share a class; rep holds one
	// byte of each class to drive the NFA step.
	classOf    [256]uint8
	rep        []byte
	numClasses int
}

// newLazyDFA compiles the rule expressions (Go regexp syntax) in priority
// order. It panics on a malformed expression, which is a programming error
// caught by any test.
func newLazyDFA(exprs []string) *lazyDFA {
	d := &lazyDFA{states: make(map[string]*dstate)}
	for _, e := range exprs {
		re, err := syntax.Parse(e, syntax.Perl)
		if err != nil {
			panic("strtotime: bad rule " + e + ": " + err.Error())
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			panic("strtotime: bad rule " + e + ": " + err.Error())
		}
		d.progs = append(d.progs, prog)
	}
	d.computeClasses()
	d.dead = &dstate{accept: -1}
	seeds := make([]uint32, 0, len(d.progs))
	for r, p := range d.progs {
		seeds = append(seeds, uint32(r)<<16|uint32(p.Start))
	}
	d.start = d.intern(d.closure(seeds))
	return d
}

// computeClasses partitions the 256 byte values by how the rune-consuming
// instructions of all rules treat them.
func (d *lazyDFA) computeClasses() {
	var insts []*syntax.Inst
	for _, p := range d.progs {
		for i := range p.Inst {
			switch p.Inst[i].Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				insts = append(insts, &p.Inst[i])
			}
		}
	}
	byKey := map[string]int{}
	sig := make([]byte, (len(insts)+7)/8)
	for b := 0; b < 256; b++ {
		for i := range sig {
			sig[i] = 0
		}
		for i, in := range insts {
			if in.MatchRune(rune(b)) {
				sig[i/8] |= 1 << (i % 8)
			}
		}
		c, ok := byKey[string(sig)]
		if !ok {
			c = len(d.rep)
			byKey[string(sig)] = c
			d.rep = append(d.rep, byte(b))
		}
		d.classOf[b] = uint8(c)
	}
	d.numClasses = len(d.rep)
}

// closure follows the empty transitions from the seed threads and returns
// the rune-consuming threads plus the best accepting rule.
func (d *lazyDFA) closure(seeds []uint32) ([]uint32, int) {
	accept := -1
	seen := make(map[uint32]bool, 64)
	var out []uint32
	stack := append([]uint32(nil), seeds...)
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[t] {
			continue
		}
		seen[t] = true
		r := t >> 16
		inst := &d.progs[r].Inst[t&0xffff]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, r<<16|inst.Out, r<<16|inst.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			stack = append(stack, r<<16|inst.Out)
		case syntax.InstMatch:
			if accept < 0 || int(r) < accept {
				accept = int(r)
			}
		case syntax.InstFail:
		default:
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, accept
}

// intern returns the cached state for a thread set, creating it if needed.
// The caller must hold mu, except during construction.
func (d *lazyDFA) intern(threads []uint32, accept int) *dstate {
	if len(threads) == 0 && accept < 0 {
		return d.dead
	}
	key := make([]byte, 0, 4*len(threads)+4)
	a := uint32(accept + 1)
	key = append(key, byte(a), byte(a>>8), 0, 0)
	for _, t := range threads {
		key = append(key, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	if s, ok := d.states[string(key)]; ok {
		return s
	}
	s := &dstate{threads: threads, accept: accept, next: make([]atomic.Pointer[dstate], d.numClasses)}
	if len(d.states) < maxDFAStates {
		d.states[string(key)] = s
	}
	return s
}

// step computes (and caches) the transition of s on byte class c.
func (d *lazyDFA) step(s *dstate, c uint8) *dstate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := s.next[c].Load(); n != nil {
		return n
	}
	b := d.rep[c]
	var seeds []uint32
	for _, t := range s.threads {
		r := t >> 16
		inst := &d.progs[r].Inst[t&0xffff]
		if inst.MatchRune(rune(b)) {
			seeds = append(seeds, r<<16|inst.Out)
		}
	}
	n := d.intern(d.closure(seeds))
	if len(d.states) < maxDFAStates || n == d.dead {
		s.next[c].Store(n)
	}
	return n
}

// longest returns the length and rule index of the longest match starting
// at in[pos]; ties go to the lowest rule index. It returns (0, -1) when no
// rule matches.
func (d *lazyDFA) longest(in []byte, pos int) (int, int) {
	s := d.start
	bestLen, bestRule := 0, -1
	for i := pos; i < len(in); i++ {
		c := d.classOf[in[i]]
		n := s.next[c].Load()
		if n == nil {
			n = d.step(s, c)
		}
		if n == d.dead {
			break
		}
		s = n
		if s.accept >= 0 {
			bestLen, bestRule = i-pos+1, s.accept
		}
	}
	return bestLen, bestRule
}
