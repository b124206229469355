package apiserver

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// WriteKubeconfig writes a kubeconfig (mode 0600) that reaches server
// (https://host:port) with the CA in caFile, as user with a bearer token:
// what `converge up` gives kubectl and what an operator checked as its
// own process reads from KUBECONFIG.
func WriteKubeconfig(path, server, caFile, user, token string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: converge
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: converge
  context:
    cluster: converge
    user: %s
    namespace: default
current-context: converge
`, server, base64.StdEncoding.EncodeToString(ca), user, token, user)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(cfg), 0o600)
}

// NewToken is a fresh random bearer token (48 hex digits).
func NewToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
