package api

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Fast paths for the name, label and percent checks every write makes.
// apimachinery's validators match regular expressions: without these,
// BenchmarkDefaultAndValidateDeployment took 13.3µs of CPU an op, not 8.6.
// A value of the common shape passes here; any other goes to apimachinery,
// whose messages are the errors. names_shape_test checks that nothing
// passes here that apimachinery refuses.

func dns1123Label(v string) []string {
	if len(v) <= validation.DNS1123LabelMaxLength && isDNS1123LabelShape(v) {
		return nil
	}
	return validation.IsDNS1123Label(v)
}

func dns1123Subdomain(v string) []string {
	if len(v) <= validation.DNS1123SubdomainMaxLength && isDNS1123SubdomainShape(v) {
		return nil
	}
	return validation.IsDNS1123Subdomain(v)
}

func validPercent(v string) []string {
	if len(v) > 1 && v[len(v)-1] == '%' && strings.Trim(v[:len(v)-1], "0123456789") == "" {
		return nil
	}
	return validation.IsValidPercent(v)
}

// plainName is a name every name rule takes (DNS-1123 subdomain and label,
// DNS-1035 label): a short label that starts with a letter.
func plainName(v string) bool {
	return len(v) <= validation.DNS1035LabelMaxLength && isDNS1123LabelShape(v) && 'a' <= v[0] && v[0] <= 'z'
}

// plainGenerateName: a generateName whose dash-less prefix is plain, which
// every name rule takes with its trailing dash masked.
func plainGenerateName(v string) bool { return plainName(strings.TrimSuffix(v, "-")) }

// labelsHaveShape: every key and value is well formed, so
// ValidateLabels would find nothing.
func labelsHaveShape(labels map[string]string) bool {
	for k, v := range labels {
		if !isLabelKeyShape(k) || !isLabelValueShape(v) {
			return false
		}
	}
	return true
}

func isLabelKeyShape(k string) bool {
	name := k
	if prefix, rest, ok := strings.Cut(k, "/"); ok {
		if len(prefix) > validation.DNS1123SubdomainMaxLength || !isDNS1123SubdomainShape(prefix) {
			return false
		}
		name = rest
	}
	return len(name) <= 63 && isQualifiedNameShape(name) // the name part's limit
}

func isLabelValueShape(v string) bool {
	return v == "" || len(v) <= content.LabelValueMaxLength && isQualifiedNameShape(v)
}

// isDNS1123LabelShape: lower-case alphanumerics and '-', alphanumeric at
// both ends.
func isDNS1123LabelShape(s string) bool { return hasShape(s, isLowerAlnum, isLowerAlnumOrDash) }

// isDNS1123SubdomainShape: such labels joined by dots.
func isDNS1123SubdomainShape(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isDNS1123LabelShape(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isQualifiedNameShape: alphanumerics, '-', '_' and '.', alphanumeric at
// both ends.
func isQualifiedNameShape(s string) bool { return hasShape(s, isAlnum, isNameByte) }

// hasShape: s is not empty, starts and ends with an end byte and has only
// inner bytes between.
func hasShape(s string, end, inner func(byte) bool) bool {
	if s == "" || !end(s[0]) || !end(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !inner(s[i]) {
			return false
		}
	}
	return true
}

func isLowerAlnum(b byte) bool       { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }
func isLowerAlnumOrDash(b byte) bool { return isLowerAlnum(b) || b == '-' }
func isAlnum(b byte) bool            { return isLowerAlnum(b) || 'A' <= b && b <= 'Z' }
func isNameByte(b byte) bool         { return isAlnum(b) || b == '-' || b == '_' || b == '.' }
