module github.com/converge-dev/converge/e2e/kubebuilder

go 1.26.6
