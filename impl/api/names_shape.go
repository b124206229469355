package api

import "strings"

// Matchers for the name formats every write checks, in place of their
// regular expressions (the Fmt constants, still quoted in errors): the
// regexp engine was a tenth of validation's cost. names_test checks each
// against its expression.

// isDNS1123LabelShape matches dns1123LabelFmt.
func isDNS1123LabelShape(s string) bool { return hasShape(s, isLowerAlnum, isLowerAlnumOrDash) }

// isDNS1123SubdomainShape matches dns1123SubdomainFmt: labels joined by dots.
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

// isQualifiedNameShape matches qualifiedNameFmt.
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
