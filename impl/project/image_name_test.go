package project

import (
	"strings"
	"testing"

	"github.com/distribution/reference"
	"pgregory.net/rapid"

	"github.com/converge-dev/converge/model"
)

// The model's image-name grammar (model/image_name.go) gives the kubelet's
// answer: an image parses exactly when github.com/distribution/reference's
// ParseNormalizedNamed, which the kubelet calls, parses it.
func TestImageNameAgreesWithDistribution(t *testing.T) {
	agree := func(t *testing.T, image string) {
		t.Helper()
		_, err := reference.ParseNormalizedNamed(image)
		if got := model.ImageNameError(image); (got == "") != (err == nil) {
			t.Fatalf("image %q: the model says %q, distribution/reference %v", image, got, err)
		}
	}
	for _, image := range []string{
		"nginx", "nginx:1.27", "library/nginx:latest", "docker.io/library/nginx", "index.docker.io/nginx",
		"registry.local:5000/team/app:v1", "localhost/app", "localhost:5000/app", "[::1]:5000/app",
		"Registry.Example/app", "App", "app/Sub", "nginx:", ":1", "@sha256:" + strings.Repeat("a", 64),
		"nginx@sha256:" + strings.Repeat("a", 64), "nginx@sha256:" + strings.Repeat("A", 64),
		"nginx@sha256:abc", "nginx@md5:" + strings.Repeat("a", 32), "nginx@sha512:" + strings.Repeat("0", 128),
		"nginx:1@sha384:" + strings.Repeat("f", 96), strings.Repeat("a", 64), strings.Repeat("a", 256),
		"a__b", "a___b", "a--b", "a..b", "a.b_c-d", "-a", "a-", "a/", "/a", "a//b", "a b", "a\tb",
		"rabbitmq:3.13", "converge.local/echo:v1", "?[∲«Aa&𑃍ꢻ", "ümlaut", "a:" + strings.Repeat("t", 129),
		"",
	} {
		agree(t, image)
	}
	alphabet := []rune("abzAZ09._-/:@[]+ \tü")
	rapid.Check(t, func(rt *rapid.T) {
		var b strings.Builder
		for _, r := range rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 24).Draw(rt, "runes") {
			b.WriteRune(r)
		}
		if rapid.Bool().Draw(rt, "digest?") {
			b.WriteString("@sha256:" + strings.Repeat(rapid.SampledFrom([]string{"a", "F", "0"}).Draw(rt, "hex"), rapid.SampledFrom([]int{32, 64, 65}).Draw(rt, "len")))
		}
		image := b.String()
		_, err := reference.ParseNormalizedNamed(image)
		if got := model.ImageNameError(image); (got == "") != (err == nil) {
			rt.Fatalf("image %q: the model says %q, distribution/reference %v", image, got, err)
		}
	})
}
