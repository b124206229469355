# converge — see README.md. Every target is safe to run on a fresh machine.
GO        ?= go
FUZZTIME  ?= 15s
CHECKS    ?= 2000

.PHONY: test demo bench fuzz golden lint build check-model

build:
	$(GO) build ./...

# The default test run: unit, scenario, property and integration tests.
test: lint
	$(GO) test -count=1 -timeout 20m ./...

# The seed Deployment flow (my-app, 3 replicas) on embedded etcd, live.
demo:
	$(GO) run ./cmd/converge demo

# Benchmarks; figures are reported as ratios against raw etcd where relevant.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Long model property campaign.
check-model:
	$(GO) test ./model/... -run TestModelProperty -rapid.checks=$(CHECKS) -rapid.steps=200

# Coverage-guided fuzzing arrives with the fuzzing issue; until then this
# runs the model property as a longer campaign.
fuzz: check-model

# Regenerate golden scenario files; review the diff like code.
golden:
	$(GO) test ./model ./traces -run 'Scenario|Golden' -rewrite

lint:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
