package crdgen

import (
	"math"
	"regexp"
	"unicode/utf8"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
)

// maxFreeRunes bounds strings the schema leaves unbounded, so objects stay
// readable; the schema's minLength wins when larger.
const maxFreeRunes = 16

// enumGen draws enum values, shrinking to the first. Each draw is a copy,
// so users may change what they get.
func enumGen(enum []structuralschema.JSON) *rapid.Generator[any] {
	vals := make([]any, len(enum))
	for i, e := range enum {
		vals[i] = normalize(e.Object)
	}
	return rapid.Map(rapid.IntRange(0, len(vals)-1), func(i int) any {
		return runtime.DeepCopyJSONValue(vals[i])
	})
}

// nullable draws null one time in eight, shrinking to a value: users
// rarely write null, but controllers must cope when they do.
func nullable(g *rapid.Generator[any]) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		if rapid.IntRange(0, 7).Draw(t, "null") == 7 {
			return nil
		}
		return g.Draw(t, "value")
	})
}

// stringGen draws from the format when it is cheap to build, else from
// the pattern when it is RE2, else any short string; what the first two
// produce is filtered to the length bounds (and the pattern).
func stringGen(vv *structuralschema.ValueValidation) *rapid.Generator[any] {
	lo, hi := 0, -1
	if vv.MinLength != nil {
		lo = int(*vv.MinLength)
	}
	if vv.MaxLength != nil {
		hi = int(*vv.MaxLength)
	}
	var re *regexp.Regexp
	if vv.Pattern != "" {
		re, _ = regexp.Compile(vv.Pattern)
	}
	var g *rapid.Generator[string]
	switch f := formatGen(vv.Format); {
	case f != nil:
		g = f
	case re != nil:
		g = rapid.StringMatching(vv.Pattern)
		re = nil // matches by construction
	default:
		maxN := max(lo, maxFreeRunes)
		if hi >= 0 {
			maxN = min(maxN, hi)
		}
		return rapid.StringN(lo, max(lo, maxN), -1).AsAny()
	}
	if lo > 0 || hi >= 0 || re != nil {
		g = g.Filter(func(s string) bool {
			n := utf8.RuneCountInString(s)
			return n >= lo && (hi < 0 || n <= hi) && (re == nil || re.MatchString(s))
		})
	}
	return g.AsAny()
}

// intGen draws within minimum and maximum (exclusive ones moved inward),
// as multiples of an integral multipleOf, shrinking toward 0 or the
// bound nearest it.
func intGen(vv *structuralschema.ValueValidation, format string) *rapid.Generator[any] {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if format == "int32" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if vv.Minimum != nil {
		m := math.Ceil(*vv.Minimum)
		if vv.ExclusiveMinimum && m == *vv.Minimum {
			m++
		}
		lo = max(lo, clampInt(m))
	}
	if vv.Maximum != nil {
		m := math.Floor(*vv.Maximum)
		if vv.ExclusiveMaximum && m == *vv.Maximum {
			m--
		}
		hi = min(hi, clampInt(m))
	}
	if vv.MultipleOf != nil && *vv.MultipleOf >= 1 && *vv.MultipleOf == math.Trunc(*vv.MultipleOf) && *vv.MultipleOf < 1<<62 {
		step := int64(*vv.MultipleOf)
		klo, khi := ceilDiv(lo, step), floorDiv(hi, step)
		if klo <= khi {
			return rapid.Map(rapid.Int64Range(klo, khi), func(k int64) any { return k * step })
		}
	}
	if lo > hi {
		return rapid.Just[any](lo) // unsatisfiable: validation reports it
	}
	return rapid.Int64Range(lo, hi).AsAny()
}

func clampInt(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// numberGen draws finite numbers within the bounds, as k*multipleOf when
// set, in JSON form (int64 when integral).
func numberGen(vv *structuralschema.ValueValidation) *rapid.Generator[any] {
	lo, hi := -math.MaxFloat64, math.MaxFloat64
	if vv.Minimum != nil {
		lo = *vv.Minimum
	}
	if vv.Maximum != nil {
		hi = *vv.Maximum
	}
	inside := func(f float64) bool {
		return !math.IsNaN(f) && !math.IsInf(f, 0) &&
			!(vv.ExclusiveMinimum && f == lo) && !(vv.ExclusiveMaximum && f == hi) &&
			(vv.MultipleOf == nil || integralMultiple(f, *vv.MultipleOf))
	}
	var g *rapid.Generator[float64]
	if m := vv.MultipleOf; m != nil && *m > 0 {
		const bound = 1 << 40
		klo := max(math.Ceil(lo / *m), -bound)
		khi := min(math.Floor(hi / *m), bound)
		if klo <= khi {
			g = rapid.Map(rapid.Int64Range(int64(klo), int64(khi)), func(k int64) float64 { return float64(k) * *m })
		}
	}
	if g == nil {
		if lo > hi {
			return rapid.Just[any](canonicalFloat(lo))
		}
		g = rapid.Float64Range(lo, hi)
	}
	return rapid.Map(g.Filter(inside), canonicalFloat)
}

// integralMultiple reports whether the apiserver accepts f for a
// multipleOf m. An integral number arrives as int64, and go-openapi then
// checks it against int64(m): with m below 1 that is 0 and every integral
// value is refused ("factor MultipleOf ... must be positive"), so 0 cannot
// be written for multipleOf: 0.5. Non-integral values are checked as
// floats.
func integralMultiple(f, m float64) bool {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return true
	}
	step := int64(m)
	return step > 0 && int64(f)%step == 0
}
