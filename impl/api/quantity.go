package api

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalidQuantity reports a resource quantity that does not parse or
// does not fit.
var ErrInvalidQuantity = errors.New("api: invalid quantity")

// quantityFormatMsg is Kubernetes' wording for a malformed quantity.
const quantityFormatMsg = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

// maxQuantityLen bounds the work one parse can do.
const maxQuantityLen = 64

// Quantity is a resource amount held exactly in thousandths of a unit,
// which covers cpu ("100m") and memory ("128Mi") alike.
type Quantity struct {
	milli int64
}

// MilliValue is the amount in thousandths (millicores for cpu), rounded up.
func (q Quantity) MilliValue() int64 { return q.milli }

// Value is the amount in whole units (bytes for memory), rounded up.
func (q Quantity) Value() int64 {
	v := q.milli / 1000
	if q.milli%1000 > 0 {
		v++
	}
	return v
}

// Cmp is -1, 0 or 1 as q is less than, equal to or greater than o.
func (q Quantity) Cmp(o Quantity) int {
	switch {
	case q.milli < o.milli:
		return -1
	case q.milli > o.milli:
		return 1
	}
	return 0
}

// IsNegative reports an amount below zero.
func (q Quantity) IsNegative() bool { return q.milli < 0 }

var binarySuffixes = map[string]int64{
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}

// decimalSuffixes are powers of ten.
var decimalSuffixes = map[string]int{
	"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}

// ParseQuantity parses Kubernetes quantity syntax: a signed decimal number
// followed by a binary suffix (Ki..Ei), a decimal suffix (n u m k M G T P E)
// or a decimal exponent (e3, E-2). Sub-milli amounts round up to 1m.
// Amounts beyond about 9.2e15 units (8 PiB) do not fit and are an error.
func ParseQuantity(s string) (Quantity, error) {
	if q, ok := parseCommonQuantity(s); ok {
		return q, nil
	}
	return parseQuantity(s)
}

// millisPerUnit are the suffixes parseCommonQuantity knows, in thousandths.
var millisPerUnit = map[string]int64{
	"m": 1, "": 1e3, "k": 1e6, "M": 1e9, "G": 1e12,
	"Ki": 1 << 10 * 1e3, "Mi": 1 << 20 * 1e3, "Gi": 1 << 30 * 1e3,
}

// parseCommonQuantity reads the shapes requests and capacities almost
// always take (up to nine digits and a suffix up to giga) without big.Rat:
// the implementation parses every pod's requests whenever it projects the
// pod, and big.Rat made that a tenth of the running driver's time. ok is
// false for anything else, which parseQuantity reads.
func parseCommonQuantity(s string) (q Quantity, ok bool) {
	var n int64
	i := 0
	for ; i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	unit, known := millisPerUnit[s[i:]]
	if i == 0 || !known || n > math.MaxInt64/unit {
		return Quantity{}, false
	}
	return Quantity{milli: n * unit}, true
}

func parseQuantity(s string) (Quantity, error) {
	bad := func(why string) (Quantity, error) {
		return Quantity{}, fmt.Errorf("%w: %q: %s", ErrInvalidQuantity, s, why)
	}
	if s == "" {
		return bad("empty")
	}
	if len(s) > maxQuantityLen {
		return bad("too long")
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits := 0
	dots := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
		} else if c == '.' {
			dots++
		} else {
			break
		}
	}
	if digits == 0 || dots > 1 {
		return bad(quantityFormatMsg)
	}
	num, suffix := s[:i], s[i:]
	r, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
	if !ok {
		return bad(quantityFormatMsg)
	}
	if m, ok := binarySuffixes[suffix]; ok {
		r.Mul(r, new(big.Rat).SetInt64(m))
	} else if exp, ok := decimalSuffixes[suffix]; ok {
		r.Mul(r, pow10(exp))
	} else if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		exp, err := strconv.Atoi(suffix[1:])
		if err != nil || exp < -30 || exp > 30 {
			return bad(quantityFormatMsg)
		}
		r.Mul(r, pow10(exp))
	} else {
		return bad("unknown suffix " + strconv.Quote(suffix))
	}
	r.Mul(r, big.NewRat(1000, 1))
	milli := ceilRat(r)
	if !milli.IsInt64() || milli.Int64() == math.MinInt64 {
		return bad("out of range")
	}
	return Quantity{milli: milli.Int64()}, nil
}

func pow10(exp int) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp < 0 {
		return new(big.Rat).SetFrac(big.NewInt(1), p)
	}
	return new(big.Rat).SetInt(p)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ceilRat rounds r toward positive infinity.
func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// ParseCPU parses a cpu quantity into millicores ("100m" -> 100, "0.5" -> 500).
func ParseCPU(s string) (int64, error) {
	q, err := ParseQuantity(s)
	if err != nil {
		return 0, err
	}
	return q.MilliValue(), nil
}

// ParseMemory parses a memory quantity into bytes ("128Mi" -> 134217728).
func ParseMemory(s string) (int64, error) {
	q, err := ParseQuantity(s)
	if err != nil {
		return 0, err
	}
	return q.Value(), nil
}
