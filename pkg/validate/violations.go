package validate

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the validator's own messages for keywords clawtap does
// not describe itself.
var printer = message.NewPrinter(language.English)

// violation is one thing wrong with one value: where (the instance
// location below the validated part), which keyword, what the schema
// expected and what the value is.
type violation struct {
	loc      []string // path below the validated value
	keyword  string   // the schema keyword that failed
	expected string
	actual   string // "" when the value itself is to be shown
	extra    bool   // a property the schema does not allow
	absent   bool   // a required property that is missing
}

// violations turns a validation error tree into the violations a person
// would name. Containers ($ref, groups) are looked through; of an anyOf or
// oneOf whose alternatives all failed, the alternative the value was meant
// to be is kept (see pickAlternative).
func violations(e *jsonschema.ValidationError) []violation {
	var out []violation
	collect(e, &out)
	return out
}

func collect(e *jsonschema.ValidationError, out *[]violation) {
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		pickAlternative(e, out)
		return
	case *kind.OneOf:
		if k.Subschemas == nil {
			pickAlternative(e, out)
			return
		}
		*out = append(*out, violation{loc: e.InstanceLocation, keyword: "oneOf",
			expected: "exactly one alternative", actual: fmt.Sprintf("matches alternatives %d and %d", k.Subschemas[0], k.Subschemas[1])})
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(c, out)
		}
		return
	}
	*out = append(*out, leafViolations(e)...)
}

// pickAlternative chooses among the failed alternatives of a union. An
// alternative is "not meant" when it fails on a discriminator: a const or
// enum of the union's value or of one of its direct properties ("state":
// "delta"), or the value's type itself. Of the alternatives with the
// fewest such misses, the one with the fewest violations wins. When every
// alternative misses on the same spot (an unknown state, a string where
// the alternatives are an object and null), that spot is reported once,
// with what each alternative wanted.
func pickAlternative(e *jsonschema.ValidationError, out *[]violation) {
	type miss struct{ spot, want string }
	type alt struct {
		vs     []violation
		misses []miss // in the order found (the violations are sorted)
	}
	alts := make([]alt, 0, len(e.Causes))
	depth := len(e.InstanceLocation)
	best := -1
	for _, c := range e.Causes {
		var vs []violation
		collect(c, &vs)
		sortViolations(vs)
		a := alt{vs: vs}
		for _, v := range vs {
			if discriminates(v, depth) {
				a.misses = append(a.misses, miss{joinLoc(v.loc), v.expected})
			}
		}
		alts = append(alts, a)
		if best < 0 || len(a.misses) < best {
			best = len(a.misses)
		}
	}
	if len(alts) == 0 {
		*out = append(*out, violation{loc: e.InstanceLocation, keyword: e.ErrorKind.KeywordPath()[0], expected: "one of the alternatives"})
		return
	}
	if best > 0 {
		// A spot every alternative misses on is the one to report.
	spots:
		for _, m := range alts[0].misses {
			wants := []string{m.want}
			for _, a := range alts[1:] {
				i := slices.IndexFunc(a.misses, func(o miss) bool { return o.spot == m.spot })
				if i < 0 {
					continue spots
				}
				wants = append(wants, a.misses[i].want)
			}
			*out = append(*out, violation{loc: splitLoc(m.spot), keyword: e.ErrorKind.KeywordPath()[0], expected: oneOf(wants)})
			return
		}
	}
	pick := -1
	for i, a := range alts {
		if len(a.misses) == best && (pick < 0 || len(a.vs) < len(alts[pick].vs)) {
			pick = i
		}
	}
	*out = append(*out, alts[pick].vs...)
}

// joinLoc and splitLoc turn a location into a comparable key and back.
func joinLoc(loc []string) string { return strings.Join(loc, "\x00") }

func splitLoc(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// sortViolations puts violations in a stable order: the validator visits
// properties in map order.
func sortViolations(vs []violation) {
	slices.SortStableFunc(vs, func(a, b violation) int {
		if c := slices.Compare(a.loc, b.loc); c != 0 {
			return c
		}
		if c := strings.Compare(a.keyword, b.keyword); c != 0 {
			return c
		}
		return strings.Compare(a.expected, b.expected)
	})
}

// discriminates reports whether v rules its alternative out: a const or
// enum at the union's value or a direct property of it, or a type at the
// union's value.
func discriminates(v violation, depth int) bool {
	switch v.keyword {
	case "const", "enum":
		return len(v.loc) == depth || len(v.loc) == depth+1 && !isIndex(v.loc[depth])
	case "type":
		return len(v.loc) == depth
	}
	return false
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// oneOf joins what the alternatives wanted, without repeats.
func oneOf(wants []string) string {
	var uniq []string
	for _, w := range wants {
		for _, p := range strings.Split(w, " or ") {
			if !slices.Contains(uniq, p) {
				uniq = append(uniq, p)
			}
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "one of " + strings.Join(uniq, ", ")
}

// leafViolations describes a failed keyword. Required and
// additionalProperties name several properties: each is its own violation,
// located at the property.
func leafViolations(e *jsonschema.ValidationError) []violation {
	loc := e.InstanceLocation
	kw := ""
	if p := e.ErrorKind.KeywordPath(); len(p) > 0 {
		kw = p[0]
	}
	one := func(expected, actual string) []violation {
		return []violation{{loc: loc, keyword: kw, expected: expected, actual: actual}}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		out := make([]violation, 0, len(k.Missing))
		for _, p := range k.Missing {
			out = append(out, violation{loc: child(loc, p), keyword: kw, expected: "present (required)", actual: "absent", absent: true})
		}
		return out
	case *kind.AdditionalProperties:
		props := slices.Clone(k.Properties)
		slices.Sort(props) // the validator reports them in map order
		out := make([]violation, 0, len(props))
		for _, p := range props {
			out = append(out, violation{loc: child(loc, p), keyword: kw, expected: "absent (not in the schema)", extra: true})
		}
		return out
	case *kind.Dependency:
		return one(fmt.Sprintf("%s beside %s", strings.Join(k.Missing, ", "), k.Prop), "absent")
	case *kind.DependentRequired:
		return one(fmt.Sprintf("%s beside %s", strings.Join(k.Missing, ", "), k.Prop), "absent")
	case *kind.Type:
		return one(strings.Join(k.Want, " or "), "")
	case *kind.Const:
		return one(literal(k.Want), "")
	case *kind.Enum:
		wants := make([]string, len(k.Want))
		for i, w := range k.Want {
			wants[i] = literal(w)
		}
		return one(oneOf(wants), "")
	case *kind.Format:
		return one("format "+k.Want, "")
	case *kind.Pattern:
		return one("a string matching "+strconv.Quote(k.Want), "")
	case *kind.MinLength:
		return one(fmt.Sprintf("at least %d characters", k.Want), fmt.Sprintf("%d characters", k.Got))
	case *kind.MaxLength:
		return one(fmt.Sprintf("at most %d characters", k.Want), fmt.Sprintf("%d characters", k.Got))
	case *kind.MinItems:
		return one(fmt.Sprintf("at least %d items", k.Want), fmt.Sprintf("%d items", k.Got))
	case *kind.MaxItems:
		return one(fmt.Sprintf("at most %d items", k.Want), fmt.Sprintf("%d items", k.Got))
	case *kind.MinProperties:
		return one(fmt.Sprintf("at least %d properties", k.Want), fmt.Sprintf("%d properties", k.Got))
	case *kind.MaxProperties:
		return one(fmt.Sprintf("at most %d properties", k.Want), fmt.Sprintf("%d properties", k.Got))
	case *kind.Minimum:
		return one(">= "+rat(k.Want), "")
	case *kind.Maximum:
		return one("<= "+rat(k.Want), "")
	case *kind.ExclusiveMinimum:
		return one("> "+rat(k.Want), "")
	case *kind.ExclusiveMaximum:
		return one("< "+rat(k.Want), "")
	case *kind.MultipleOf:
		return one("a multiple of "+rat(k.Want), "")
	case *kind.UniqueItems:
		return one("unique items", fmt.Sprintf("items %d and %d are equal", k.Duplicates[0], k.Duplicates[1]))
	case *kind.AdditionalItems:
		return one("no more items", fmt.Sprintf("%d more", k.Count))
	case *kind.FalseSchema:
		return one("nothing (the schema allows no value here)", "")
	case *kind.Not:
		return one("a value the \"not\" schema rejects", "")
	case *kind.PropertyNames:
		return []violation{{loc: child(loc, k.Property), keyword: kw, expected: "a property name the schema allows"}}
	}
	return one(strings.TrimSpace(e.ErrorKind.LocalizedString(printer)), "")
}

func child(loc []string, name string) []string {
	return append(slices.Clip(loc), name)
}

func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}

// literal renders a schema value (a const or enum member) as JSON.
func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
