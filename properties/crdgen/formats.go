package crdgen

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"pgregory.net/rapid"
)

// Names drawn where a Kubernetes name is needed (metadata.name of the
// object when not given, of embedded resources): DNS labels, so valid as
// subdomains too.
var nameGen = rapid.StringMatching(`[a-z]([a-z0-9-]{0,10}[a-z0-9])?`)

// keyGen draws keys of maps and of preserved unknown fields, avoiding the
// object's declared (and owned) names: an unknown key that is a declared
// one would be validated as that field.
func keyGen(taken map[string]bool) *rapid.Generator[string] {
	g := rapid.StringMatching(`[a-z][a-z0-9]{0,7}`)
	if len(taken) == 0 {
		return g
	}
	return g.Filter(func(k string) bool { return !taken[k] })
}

// Dates drawn for date and date-time span 2000 to 2100 at second
// resolution, shrinking to 2000-01-01T00:00:00Z.
var (
	epoch  = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	second = rapid.Int64Range(0, 100*365*24*3600)
)

// formatGen is a generator for the formats the apiserver checks
// (validation.supportedVersionedFormats, names without dashes as
// go-openapi normalizes them) that are cheap to build, nil for the rest:
// the pattern or a plain string is drawn, and validation rejects misses.
func formatGen(format string) *rapid.Generator[string] {
	switch strings.ReplaceAll(format, "-", "") {
	case "datetime":
		return rapid.Map(second, func(s int64) string { return epoch.Add(time.Duration(s) * time.Second).Format(time.RFC3339) })
	case "date":
		return rapid.Map(second, func(s int64) string { return epoch.Add(time.Duration(s) * time.Second).Format(time.DateOnly) })
	case "duration":
		return rapid.StringMatching(`[0-9]{1,4}(ns|us|ms|s|m|h)`)
	case "byte": // "" is refused
		return rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 12), base64.StdEncoding.EncodeToString)
	case "uuid":
		return rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	case "uuid3", "uuid4", "uuid5":
		v := format[len(format)-1:]
		variant := "[89ab]"
		if v == "3" {
			variant = "[0-9a-f]"
		}
		return rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-` + v + `[0-9a-f]{3}-` + variant + `[0-9a-f]{3}-[0-9a-f]{12}`)
	case "ipv4":
		return rapid.Map(rapid.SliceOfN(rapid.Byte(), 4, 4), func(b []byte) string { return netip.AddrFrom4([4]byte(b)).String() })
	case "ipv6":
		return rapid.Map(rapid.SliceOfN(rapid.Byte(), 16, 16), func(b []byte) string { return netip.AddrFrom16([16]byte(b)).String() })
	case "cidr":
		return rapid.Custom(func(t *rapid.T) string {
			b := rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "ip")
			bits := rapid.IntRange(0, 32).Draw(t, "bits")
			return netip.PrefixFrom(netip.AddrFrom4([4]byte(b)), bits).Masked().String()
		})
	case "mac":
		return rapid.Map(rapid.SliceOfN(rapid.Byte(), 6, 6), func(b []byte) string {
			return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5])
		})
	case "hostname": // strfmt.HostnamePattern: one label, or a top-level domain of letters
		return rapid.StringMatching(`[a-z0-9]{1,8}|([a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?\.){1,2}[a-z]{2,6}`)
	case "k8slongname":
		return rapid.StringMatching(`[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?){0,2}`)
	case "k8sshortname":
		return rapid.StringMatching(`[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?`)
	case "email":
		return rapid.StringMatching(`[a-z0-9]{1,8}@[a-z]{1,8}\.[a-z]{2,3}`)
	case "uri":
		return rapid.StringMatching(`https://[a-z]{1,8}\.example/[a-z0-9]{0,8}`)
	case "bsonobjectid":
		return rapid.StringMatching(`[0-9a-f]{24}`)
	case "hexcolor":
		return rapid.StringMatching(`#[0-9a-f]{6}`)
	case "rgbcolor":
		return rapid.Custom(func(t *rapid.T) string {
			c := rapid.SliceOfN(rapid.Byte(), 3, 3).Draw(t, "rgb")
			return fmt.Sprintf("rgb(%d,%d,%d)", c[0], c[1], c[2])
		})
	case "ssn":
		return rapid.StringMatching(`[0-9]{3}-[0-9]{2}-[0-9]{4}`)
	}
	return nil
}
