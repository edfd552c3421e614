package hashid

import (
	"slices"
	"strings"
	"testing"
)

// hashcatCategories are the categories hashcat 6.2.6 gives its modes; every
// row uses one.
var hashcatCategories = map[string]bool{
	catRaw: true, catSalted: true, catAuth: true, catChecksum: true, catCipher: true, catKDF: true, catOTP: true,
	catNet: true, catOS: true, catDB: true, catServer: true, catEAS: true, catFDE: true, catDoc: true, catArchive: true,
	catWeb: true, catFW: true, catPM: true, catIM: true, catKey: true, catWallet: true, catPlain: true,
}

func TestTableRows(t *testing.T) {
	for _, f := range formats {
		if f.name == "" || !hashcatCategories[f.category] || f.weight <= 0 {
			t.Errorf("row %q: category %q, weight %v", f.name, f.category, f.weight)
		}
		if len(f.patterns) == 0 && f.category != catPlain {
			t.Errorf("row %q has no pattern", f.name)
		}
		if (f.mode == noMode) != (f.hashcat == "") {
			t.Errorf("row %q: mode %d, line %q", f.name, f.mode, f.hashcat)
		}
	}
}

// TestEveryPatternReachable: for every pattern, a string built to fit it is
// matched, and the dispatch indexes lead Identify to it.
func TestEveryPatternReachable(t *testing.T) {
	for _, f := range formats {
		for _, p := range f.patterns {
			s := sample(p)
			if _, ok := p.match(s, nil); !ok {
				t.Errorf("%s: pattern %q does not match its own sample %q", f.name, p.src, s)
				continue
			}
			found := slices.ContainsFunc(reachable(s, nil), func(r *reach) bool { return r.p == p })
			if !found {
				t.Errorf("%s: pattern %q is not reachable from %q", f.name, p.src, s)
			}
		}
	}
}

// sample builds a string p matches: its literals, and each field filled to
// its least length (at least 1) with a character of its class that does not
// end it early.
func sample(p *pattern) string {
	var b strings.Builder
	for i, t := range p.tokens {
		if t.f == nil {
			b.WriteString(t.lit)
			continue
		}
		c := fieldBytes(p, i, "7aA.+-_=*$: ")[0]
		n := max(t.f.min, 1)
		if t.f.max >= 0 {
			n = min(n, t.f.max)
		}
		b.WriteString(strings.Repeat(string(c), n))
	}
	return b.String()
}

// fieldBytes are the bytes of from that field i of p may hold without
// ending early: those of its class, but the first of the literal after it.
func fieldBytes(p *pattern, i int, from string) []byte {
	var stop byte
	if i+1 < len(p.tokens) && p.tokens[i+1].f == nil {
		stop = p.tokens[i+1].lit[0]
	}
	var out []byte
	for k := 0; k < len(from); k++ {
		if p.tokens[i].f.cls.in[from[k]] && from[k] != stop {
			out = append(out, from[k])
		}
	}
	return out
}
