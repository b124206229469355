package apiserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/api"
	"sigs.k8s.io/yaml"
)

// ErrAuthConfig reports a malformed token or rules file.
var ErrAuthConfig = errors.New("apiserver: bad auth config")

// Anonymous is who an unauthenticated request runs as, when allowed.
const Anonymous = "system:anonymous"

// User is an authenticated caller.
type User struct {
	Name   string
	UID    string
	Groups []string
}

// Rule allows Users or Groups the Verbs on Resources ("pods",
// "pods/status") in Namespaces. "*" matches anything; an empty Namespaces
// means every namespace and the cluster scope, as does "*".
type Rule struct {
	Users      []string `json:"users,omitempty"`
	Groups     []string `json:"groups,omitempty"`
	Verbs      []string `json:"verbs"`
	Resources  []string `json:"resources"`
	Namespaces []string `json:"namespaces,omitempty"`
}

// Auth authenticates bearer tokens and authorizes by rules.
type Auth struct {
	tokens    map[[32]byte]User // by sha256 of the token
	rules     []Rule
	anonymous bool
	allowAll  bool // no rules file: every authenticated user may do anything
}

// LoadAuth reads a Kubernetes static token file (CSV: token,user,uid and an
// optional quoted comma-separated group list) and a rules file (a YAML or
// JSON list of Rule). An empty tokenFile means no tokens; an empty
// rulesFile allows every authenticated request.
func LoadAuth(tokenFile, rulesFile string, allowAnonymous bool) (*Auth, error) {
	a := &Auth{tokens: map[[32]byte]User{}, anonymous: allowAnonymous, allowAll: rulesFile == ""}
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, fmt.Errorf("apiserver: token file: %w", err)
		}
		if err := a.parseTokens(b); err != nil {
			return nil, err
		}
	}
	if rulesFile != "" {
		b, err := os.ReadFile(rulesFile)
		if err != nil {
			return nil, fmt.Errorf("apiserver: rules file: %w", err)
		}
		if err := yaml.UnmarshalStrict(b, &a.rules); err != nil {
			return nil, fmt.Errorf("%w: rules file %s: %w", ErrAuthConfig, rulesFile, err)
		}
		for i, r := range a.rules {
			if len(r.Verbs) == 0 || len(r.Resources) == 0 || len(r.Users)+len(r.Groups) == 0 {
				return nil, fmt.Errorf("%w: rule %d needs users or groups, verbs and resources", ErrAuthConfig, i)
			}
		}
	}
	return a, nil
}

func (a *Auth) parseTokens(b []byte) error {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.Comment = '#'
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: token file: %w", ErrAuthConfig, err)
		}
		if len(rec) < 3 || rec[0] == "" || rec[1] == "" {
			return fmt.Errorf("%w: token file record %d: want token,user,uid[,\"groups\"]", ErrAuthConfig, line)
		}
		u := User{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 {
			for _, g := range strings.Split(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		a.tokens[sha256.Sum256([]byte(rec[0]))] = u
	}
}

// authenticate finds the request's user: 401 for a bad token, or for none
// unless anonymous requests are allowed. A nil Auth lets everyone in.
func (a *Auth) authenticate(r *http.Request) (User, error) {
	anon := User{Name: Anonymous, Groups: []string{"system:unauthenticated"}}
	if a == nil {
		return anon, nil
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		if a.anonymous {
			return anon, nil
		}
		return User{}, api.NewUnauthorized("Unauthorized")
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return User{}, api.NewUnauthorized("Unauthorized")
	}
	u, ok := a.tokens[sha256.Sum256([]byte(token))]
	if !ok {
		return User{}, api.NewUnauthorized("Unauthorized")
	}
	u.Groups = append(slices.Clone(u.Groups), "system:authenticated")
	return u, nil
}

// authorize is 403 unless some rule allows user verb on rt.
func (a *Auth) authorize(u User, verb string, rt route) error {
	if a == nil || a.allowAll {
		return nil
	}
	for _, r := range a.rules {
		if r.allows(u, verb, rt) {
			return nil
		}
	}
	scope := "at the cluster scope"
	if rt.Namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", rt.Namespace)
	}
	return api.NewForbidden(rt.gr(), rt.Name, fmt.Errorf("User %q cannot %s resource %q in API group %q %s",
		u.Name, verb, rt.authzResource(), rt.Resource.Group, scope))
}

func (r Rule) allows(u User, verb string, rt route) bool {
	return r.names(u) && r.covers(rt.Namespace) && matches(r.Verbs, verb) && matches(r.Resources, rt.authzResource())
}

// names: the rule is for u, by name or by one of its groups.
func (r Rule) names(u User) bool {
	return matches(r.Users, u.Name) || slices.ContainsFunc(u.Groups, func(g string) bool { return matches(r.Groups, g) })
}

// covers: the rule holds in namespace ns ("" is the cluster scope).
func (r Rule) covers(ns string) bool {
	return len(r.Namespaces) == 0 || matches(r.Namespaces, ns) && ns != "" || slices.Contains(r.Namespaces, "*")
}

func matches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}
