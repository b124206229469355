package model

import (
	"fmt"
	"regexp"
	"strings"
)

// An image a kubelet cannot even name: before pulling, the kubelet parses
// the pod's image as a Docker reference (k8s.io/kubernetes
// pkg/kubelet/images, applyDefaultImageTag, through
// github.com/distribution/reference's ParseNormalizedNamed). An image
// that does not parse leaves the container waiting with reason
// InvalidImageName, a state nothing but a new image changes: the
// kubelet's later syncs fail the same way and write nothing. The grammar
// below is that package's, written with the standard library (the model
// imports nothing else); impl/project's TestImageNameAgreesWithDistribution
// holds the two to the same answers.

// The reference grammar: [domain[:port]/]path[/path...][:tag][@digest].
var (
	imageRef = regexp.MustCompile(`^(` + imageNamePat + `)(?::(` + imageTagPat + `))?(?:@(` + imageDigestPat + `))?$`)
	// imageNameSplit captures the domain (if any) and the path of a name.
	imageNameSplit  = regexp.MustCompile(`^(?:(` + imageDomainPat + `)/)?(` + imagePathPat + `)$`)
	imageIdentifier = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

const (
	imageComponent  = `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`
	imagePathPat    = imageComponent + `(?:/` + imageComponent + `)*`
	imageDomainPart = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	imageDomainPat  = `(?:` + imageDomainPart + `(?:\.` + imageDomainPart + `)*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?`
	imageNamePat    = `(?:` + imageDomainPat + `/)?` + imagePathPat
	imageTagPat     = `[\w][\w.-]{0,127}`
	imageDigestPat  = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	// maxImagePath is the longest repository path a reference may have.
	maxImagePath = 255
)

// digestHexLen is the length of each known digest algorithm's encoding,
// as go-digest checks it; another algorithm is unsupported.
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// WaitingInvalidImageName is the kubelet's waiting reason for an image
// that does not parse (pkg/kubelet/images ErrInvalidImageName).
const WaitingInvalidImageName = "InvalidImageName"

// ImageNameError says why the kubelet cannot parse image as a reference,
// in the words of its message ("couldn't parse image name ..."); "" for
// an image it can name.
func ImageNameError(image string) string {
	if err := parseImageName(image); err != "" {
		return fmt.Sprintf("couldn't parse image name %q: %s", image, err)
	}
	return ""
}

// parseImageName is ParseNormalizedNamed's verdict on s: "" or its error.
func parseImageName(s string) string {
	if imageIdentifier.MatchString(s) {
		return fmt.Sprintf("invalid repository name (%s), cannot specify 64-byte hexadecimal strings", s)
	}
	domain, rest := splitImageDomain(s)
	remote := rest
	if i := strings.IndexRune(rest, ':'); i > -1 {
		remote = rest[:i]
	}
	if strings.ToLower(remote) != remote {
		return fmt.Sprintf("invalid reference format: repository name (%s) must be lowercase", remote)
	}
	full := domain + "/" + rest
	m := imageRef.FindStringSubmatch(full)
	if m == nil {
		if imageRef.MatchString(strings.ToLower(full)) {
			return "repository name must be lowercase"
		}
		return "invalid reference format"
	}
	path := m[1]
	if n := imageNameSplit.FindStringSubmatch(m[1]); n != nil {
		path = n[2]
	}
	if len(path) > maxImagePath {
		return fmt.Sprintf("repository name must not be more than %d characters", maxImagePath)
	}
	if d := m[3]; d != "" {
		alg, enc, _ := strings.Cut(d, ":")
		n, ok := digestHexLen[alg]
		switch {
		case !ok:
			return "unsupported digest algorithm"
		case len(enc) != n || strings.ToLower(enc) != enc:
			return "invalid checksum digest format"
		}
	}
	return ""
}

// splitImageDomain splits a name into its registry and the rest, as
// Docker does: a first component with a dot or a port, "localhost", or
// one with an upper-case letter is a registry; otherwise the image is
// Docker Hub's, under library/ when it has one component.
func splitImageDomain(name string) (domain, rest string) {
	i := strings.IndexRune(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost" && strings.ToLower(name[:i]) == name[:i]) {
		domain, rest = "docker.io", name
	} else {
		domain, rest = name[:i], name[i+1:]
	}
	if domain == "index.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.ContainsRune(rest, '/') {
		rest = "library/" + rest
	}
	return domain, rest
}
