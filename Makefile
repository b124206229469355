# converge — see README.md. Every target is safe to run on a fresh machine.
GO        ?= go
FUZZTIME  ?= 15s
CHECKS    ?= 2000
# convergeselfcheck turns on converge's own self-checks (the registry
# compares every object it keeps with a decode); users' binaries never
# build with it. See ARCHITECTURE.md, "Self-checks".
TESTTAGS  ?= convergeselfcheck

.PHONY: test demo bench bench-scale fuzz golden lint build check-model race

build:
	$(GO) build ./...

# The default test run: unit, scenario, property and integration tests.
test: lint
	$(GO) test -count=1 -timeout 20m -tags $(TESTTAGS) ./...
	$(MAKE) test-clients
	$(MAKE) fuzz-smoke
	$(MAKE) race

# 64 clients load converge up over loopback HTTPS for LOADTIME: throughput
# and p50/p99 per verb, unexpected errors, peak memory, the slow watcher's
# fate, and writes/s as a ratio of raw etcd's (package reliability).
LOADTIME ?= 20s
.PHONY: load
load:
	$(GO) test -count=1 ./reliability -run '^$$' -bench BenchmarkLoad -benchtime 1x -args -load.duration=$(LOADTIME)

# The race detector over impl/..., properties/... and cmd/..., rapid
# properties at RACE_CHECKS checks each (about 25 min on 2 cores, most of
# it ./properties).
RACE_CHECKS ?= 20
race:
	GO=$(GO) RAPID_CHECKS=$(RACE_CHECKS) ./scripts/race.sh

# Real client-go and controller-runtime, default settings, against an
# in-process converge; a module of its own (e2e/clients) so the main
# module does not carry them.
.PHONY: test-clients
test-clients:
	cd e2e/clients && $(GO) test -count=1 -timeout 10m ./...

# examples/operator's manager built in a module of its own against
# controller-runtime v0.20, checked by converge check operator as its own
# process (about 10 min with empty caches: it builds k8s.io v0.32).
.PHONY: test-legacy
test-legacy:
	cd examples/operator-v020 && $(GO) test -count=1 -timeout 30m ./...

# converge init end to end: kubebuilder v4.16.0 scaffolds a project, a
# reconciler that owns a Deployment, converge init, then go test of the
# generated test against this checkout (about 15 min with empty caches;
# it downloads kubebuilder, controller-gen and the scaffold's modules).
.PHONY: test-init
test-init:
	cd e2e/kubebuilder && $(GO) test -count=1 -timeout 40m -v ./...

# A release: make release VERSION=v0.3.0. Refuses a dirty tree, a red
# make test (SKIP_TEST=1 skips it), a version not vMAJOR.MINOR.PATCH or
# already tagged; dates CHANGELOG.md's section, commits and tags. Pushes
# nothing (scripts/release.sh).
.PHONY: release
release:
	VERSION=$(VERSION) SKIP_TEST=$(SKIP_TEST) ./scripts/release.sh

# The seed Deployment flow (my-app, 3 replicas) on embedded etcd, live.
demo:
	$(GO) run ./cmd/converge demo

# The seed flow ending in real containers: converge up on a private
# containerd, the echo image, curl through the Service's clusterIP. Root.
.PHONY: demo-real
demo-real:
	GO=$(GO) ./scripts/demo-real.sh

# Benchmarks; figures are reported as ratios against raw etcd where relevant.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The headline figures as one table (about 2 minutes; scripts/bench-report.sh):
# lockstep checks a minute and over the model alone, model steps/s and
# allocations, operator checks a minute and over raw etcd, pod create over
# HTTP against a raw put.
.PHONY: bench-report
bench-report:
	GO=$(GO) ./scripts/bench-report.sh

# Issue 23's sizes, 100x1,000 to 1,000 nodes x 10,000 pods (about 15
# min: the model's own flow of the largest size, counted for model-writes,
# takes over a minute), then kubectl get pods against converge up --nodes
# 1000 while 10,000 pods start.
bench-scale:
	$(GO) test ./impl/cluster -run '^$$' -bench RunningScale -benchtime 3x -timeout 60m
	$(GO) test ./cmd/converge -run '^$$' -bench UpKubectlGetPodsAtScale -benchtime 1x -timeout 30m

# The blind bug catalogue (examples/foreign/broker): per seeded bug and
# seed 1-3, whether CheckOperator catches it, how fast, the shrunk size and
# the failure's first line, as a markdown table (about 30 min on 2 cores).
.PHONY: catalogue
catalogue:
	$(GO) test -count=1 ./examples/foreign/broker -run TestMeasure -catalogue.measure -v -timeout 90m

# Long model property campaign.
check-model:
	$(GO) test ./model/... -run TestModelProperty -rapid.checks=$(CHECKS) -rapid.steps=200

# The example user controller against 1000 checks with faults (about 7 s),
# then the mutant catalogue's README table (about 4 min; too long for make test).
.PHONY: check-controllers
check-controllers:
	$(GO) test -count=1 ./examples/replicaset -run TestReplicaSetsPassTheProperty -rapid.checks=1000
	$(GO) test -count=1 ./properties/mutants -run TestMeasureMutants -mutants.measure -v

# Coverage-guided fuzzing: every fuzz target of the module (scripts/fuzz.sh
# finds them with go test -list; `scripts/fuzz.sh --list` prints them), in
# turn for FUZZTIME each, then a table of execs/s and new coverage per
# target. A crasher stays in PKG/testdata/fuzz/<Target>/ and fails the run.
FUZZSMOKE ?= 5s
.PHONY: fuzz-one fuzz-smoke
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/fuzz.sh

# One target: make fuzz-one TARGET=FuzzLockstep FUZZTIME=10m (or PKG:NAME)
fuzz-one:
	@test -n "$(TARGET)" || { echo "usage: make fuzz-one TARGET=FuzzLockstep [FUZZTIME=10m]"; exit 2; }
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/fuzz.sh $(TARGET)

# CI smoke: every target for FUZZSMOKE; any crasher fails it. Ten targets
# at 5s are 50s of fuzzing, what five targets at 10s were before.
fuzz-smoke:
	FUZZTIME=$(FUZZSMOKE) GO=$(GO) ./scripts/fuzz.sh

# Regenerate golden scenario files; review the diff like code.
golden:
	$(GO) test ./model ./traces -run 'Scenario|Golden' -rewrite

lint:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.git/*')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd e2e/clients && $(GO) vet ./...
	cd e2e/kubebuilder && $(GO) vet ./...
