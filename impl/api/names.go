package api

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// Syntax checks with Kubernetes' wording. Each returns the list of
// problems, empty when the value is fine.

const (
	dns1123LabelFmt      = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt  = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1035LabelFmt      = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt     = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt        = "(" + qualifiedNameFmt + ")?"
	envVarNameFmt        = "[-._a-zA-Z][-._a-zA-Z0-9]*"
	percentFmt           = "[0-9]+%"
	dns1123LabelMaxLen   = 63
	dns1123SubdomainMax  = 253
	qualifiedNameMaxLen  = 63
	labelValueMaxLen     = 63
	portNameMaxLen       = 15
	totalAnnotationBytes = 256 * 1024
)

var (
	dns1035LabelRE    = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	envVarNameRE      = regexp.MustCompile("^" + envVarNameFmt + "$")
	percentRE         = regexp.MustCompile("^" + percentFmt + "$")
	portNameCharsetRE = regexp.MustCompile("^[-a-z0-9]+$")
	portNameLetterRE  = regexp.MustCompile("[a-z]")
)

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// regexError is Kubernetes' phrasing: message, examples, then the regex.
func regexError(msg, format string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + format + "')"
	}
	msg += " (e.g. "
	for i, ex := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + ex + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

func isDNS1123Label(v string) []string {
	var out []string
	if len(v) > dns1123LabelMaxLen {
		out = append(out, maxLenError(dns1123LabelMaxLen))
	}
	if !isDNS1123LabelShape(v) {
		out = append(out, regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
			dns1123LabelFmt, "my-name", "123-abc"))
	}
	return out
}

func isDNS1123Subdomain(v string) []string {
	var out []string
	if len(v) > dns1123SubdomainMax {
		out = append(out, maxLenError(dns1123SubdomainMax))
	}
	if !isDNS1123SubdomainShape(v) {
		out = append(out, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
			dns1123SubdomainFmt, "example.com"))
	}
	return out
}

func isDNS1035Label(v string) []string {
	var out []string
	if len(v) > dns1123LabelMaxLen {
		out = append(out, maxLenError(dns1123LabelMaxLen))
	}
	if !dns1035LabelRE.MatchString(v) {
		out = append(out, regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
			dns1035LabelFmt, "my-name", "abc-123"))
	}
	return out
}

const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

// isQualifiedName checks label keys, annotation keys and finalizers:
// an optional DNS subdomain prefix and '/', then a name of up to 63 chars.
func isQualifiedName(v string) []string {
	var out []string
	parts := strings.Split(v, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			out = append(out, "prefix part must be non-empty")
		} else {
			for _, m := range isDNS1123Subdomain(prefix) {
				out = append(out, "prefix part "+m)
			}
		}
	default:
		return append(out, "a qualified name "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		out = append(out, "name part must be non-empty")
	} else if len(name) > qualifiedNameMaxLen {
		out = append(out, "name part "+maxLenError(qualifiedNameMaxLen))
	}
	if !isQualifiedNameShape(name) {
		out = append(out, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return out
}

func isValidLabelValue(v string) []string {
	var out []string
	if len(v) > labelValueMaxLen {
		out = append(out, maxLenError(labelValueMaxLen))
	}
	if v != "" && !isQualifiedNameShape(v) {
		out = append(out, regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
			labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return out
}

func isValidPortNum(p int) []string {
	if p < 1 || p > 65535 {
		return []string{"must be between 1 and 65535, inclusive"}
	}
	return nil
}

// isValidPortName checks an IANA_SVC_NAME, as named ports must be.
func isValidPortName(v string) []string {
	var out []string
	if len(v) > portNameMaxLen {
		out = append(out, maxLenError(portNameMaxLen))
	}
	if !portNameCharsetRE.MatchString(v) {
		out = append(out, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !portNameLetterRE.MatchString(v) {
		out = append(out, "must contain at least one letter (a-z)")
	}
	if strings.Contains(v, "--") {
		out = append(out, "must not contain consecutive hyphens")
	}
	if v != "" && (v[0] == '-' || v[len(v)-1] == '-') {
		out = append(out, "must not begin or end with a hyphen")
	}
	return out
}

func isEnvVarName(v string) []string {
	if !envVarNameRE.MatchString(v) {
		return []string{regexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
			envVarNameFmt, "my.env-name", "MY_ENV.NAME", "MyEnvName1")}
	}
	return nil
}

func isValidPercent(v string) []string {
	if !percentRE.MatchString(v) {
		return []string{regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, "1%", "93%")}
	}
	return nil
}

func isValidIP(v string) []string {
	if _, err := netip.ParseAddr(v); err != nil || strings.Contains(v, "%") {
		return []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}
	}
	return nil
}

func isValidCIDR(v string) []string {
	if _, err := netip.ParsePrefix(v); err != nil {
		return []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}
	}
	return nil
}

// maskTrailingDash lets a generateName prefix end in '-' (it will be
// followed by a suffix), by validating it as if the dash were a letter.
func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-1] + "a"
	}
	return name
}
