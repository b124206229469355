package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCPU(t *testing.T) {
	for in, want := range map[string]int64{
		"100m": 100, "1": 1000, "0.5": 500, ".5": 500, "2.": 2000, "250m": 250, "1.5": 1500,
		"0": 0, "+1": 1000, "1e3": 1000000, "1E-3": 1, "1k": 1000000, "1n": 1, "100u": 1, "0.0001": 1,
	} {
		got, err := ParseCPU(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"128Mi": 128 << 20, "1Gi": 1 << 30, "500M": 500_000_000, "1000": 1000, "1k": 1000, "1Ki": 1024,
		"1.5Gi": 3 << 29, "8151496Ki": 8151496 << 10, "2Ti": 2 << 40,
		"0.5": 1, "1m": 1, "8Pi": 8 << 50,
	} {
		got, err := ParseMemory(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

func TestParseQuantityRejectsGarbage(t *testing.T) {
	for _, in := range []string{
		"", "Mi", "abc", "1.2.3", "1 Gi", " 1", "1Gb", "1mi", "1e", "e3", "--1", "1e99", "8Ei", "1E", // beyond int64 milli-units, about 9.2e15 units ".", "+", "1ki",
		"1234567890123456789012345678901234567890123456789012345678901234567890",
	} {
		_, err := ParseQuantity(in)
		assert.Error(t, err, "%q", in)
		assert.True(t, errors.Is(err, ErrInvalidQuantity), "%q: %v", in, err)
	}
}

func TestQuantityCompare(t *testing.T) {
	a, err := ParseQuantity("1Gi")
	require.NoError(t, err)
	b, err := ParseQuantity("1024Mi")
	require.NoError(t, err)
	c, err := ParseQuantity("1G")
	require.NoError(t, err)
	assert.Equal(t, 0, a.Cmp(b))
	assert.Equal(t, 1, a.Cmp(c))
	assert.Equal(t, -1, c.Cmp(a))
	n, err := ParseQuantity("-1")
	require.NoError(t, err)
	assert.True(t, n.IsNegative())
	assert.Equal(t, int64(-1), n.Value())
}

// The common shapes' fast path must agree with the general parser.
func TestParseCommonQuantityAgrees(t *testing.T) {
	for _, s := range []string{"0", "1", "100m", "250m", "0m", "007", "128Mi", "1Gi", "64Ki", "2k", "500M", "3G",
		"999999999", "999999999G", "999999999Gi", "123456789m", "1234567890", "1.5", "1e3", "-1", "+1", "1Ti", "m", "", "1mi"} {
		fast, ok := parseCommonQuantity(s)
		slow, err := parseQuantity(s)
		if !ok {
			continue
		}
		if err != nil || fast != slow {
			t.Errorf("%q: fast %v, general %v (%v)", s, fast, slow, err)
		}
	}
	for _, s := range []string{"1.5", "1e3", "-1", "+1", "1Ti", "m", "", "1234567890"} {
		if _, ok := parseCommonQuantity(s); ok {
			t.Errorf("%q took the fast path", s)
		}
	}
}
