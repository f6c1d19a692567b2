# outboxchaos: `make test` is the test suite, `make chaos` the main job.
GO      ?= go
RUNS    ?= runs
STAMP   := $(shell date +%Y%m%d-%H%M%S)
SHARD   ?=
ADAPTER ?= reference
SEED    ?=
NODE_DIRS := reference/bullmq/testdata/node adapters/examples/node-dispatcher adapters/dialects/node-owner-round \
             adapters/dialects/node-attempts-at-failure adapters/dialects/node-dedupe adapters/dialects/node-delete \
             adapters/dialects/node-pgtimes

.PHONY: test test-e2e race-idle test-long race chaos chaos-long chaos-dialects bench lint staticcheck node-deps build clean

build:
	$(GO) build ./...
	$(GO) build -o bin/outboxchaos ./cmd/outboxchaos

# The BullMQ compatibility test needs the pinned npm packages; it skips with a
# message when Node.js is missing.
node-deps:
	@if command -v npm >/dev/null 2>&1; then \
	  for d in $(NODE_DIRS); do \
	    [ -d $$d/node_modules ] || (cd $$d && npm ci --no-audit --no-fund) || exit 1; \
	  done; \
	else echo "npm not found: the BullMQ compatibility and Node adapter tests will be skipped (apt-get install nodejs npm)"; fi

# staticcheck comes from the Go module proxy, pinned, into bin/.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck

$(STATICCHECK):
	GOBIN=$(CURDIR)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

lint: staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The race detector over every package whose tests take seconds, not
# minutes (the end-to-end scenario, dialect and example runs are left out);
# make test runs those packages once, under the race detector, and the rest
# once without it.
RACE_PKGS = $(shell $(GO) list ./harness/... ./reference/... ./reports/... ./adapters ./adapters/manifest/... ./adapters/mutants/... ./cmd/... | grep -v /harness/bench)
OTHER_PKGS = $(filter-out $(RACE_PKGS),$(shell $(GO) list ./...))

race:
	$(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)

# make test: lint, then two passes side by side. The end-to-end packages
# run their tests in parallel, at most OUTBOXCHAOS_E2E_SLOTS at a time
# across the packages (by default one more than the CPUs:
# harness/localenv/localtest, EndToEnd). The race pass runs beside them at
# the lowest CPU priority (nice 19), one package at a time, so it takes only
# the CPU the runs leave idle and never stretches their timing: at nice 10,
# with four slots, it starved them (docs/findings.md, 2026-12-06).
test: node-deps lint
	$(MAKE) --no-print-directory -j2 --output-sync=target test-e2e race-idle

test-e2e:
	$(GO) test -count=1 -timeout 40m -p 3 -parallel 3 $(OTHER_PKGS)

race-idle:
	nice -n 19 $(GO) test -race -count=1 -p 1 -timeout 30m $(RACE_PKGS)

# make test-long: what make test leaves to the long suite (localtest.Long):
# the reference as a control beside the mutants' base, the dialects'
# plants that a black-box mutant repeats, more seeds. The three tests run
# whole, their make test parts again with them. CI runs it after make test.
# scenarios' TestLongSuiteListsEveryLongTest keeps LONG_TESTS and LONG_PKGS
# to the tests that call localtest.Long and their packages.
LONG_ENV   := OUTBOXCHAOS_LONG_TESTS=1
LONG_TESTS := ^(TestReferenceAndBasePassTheMutantScenarios|TestPlantedBugsAreCaught|TestTurnsHighWaterMarkIsCaught)$$
LONG_PKGS  := ./scenarios ./adapters/dialects

test-long: node-deps
	$(LONG_ENV) $(GO) test -count=1 -timeout 40m -p 3 -parallel 3 -run '$(LONG_TESTS)' $(LONG_PKGS)

chaos: build
	./bin/outboxchaos chaos --adapter $(ADAPTER) --out $(RUNS)/chaos-$(STAMP) $(if $(SHARD),--shard $(SHARD)) $(if $(SEED),--seed $(SEED))

# The long outages (scenarios.Long(), outside the default catalog): Redis and
# MySQL away for 30 s and 2 min, with the dispatcher's default tuning.
LONG_SCENARIOS := redis-outage-30s redis-outage-2m mysql-outage-30s mysql-outage-2m

# Every dialect of adapters/dialects (its manifest.yaml, a black box) through
# the whole catalog on three seeds (DIALECT_SEEDS); the planted manifests are
# left out. Every run is made; the target fails at the end, naming the runs
# that did not pass (exit 1 of chaos is a fail, 2 an unknown).
DIALECT_SEEDS ?= 1 2 3

chaos-dialects: build node-deps
	@bad=""; for m in adapters/dialects/*/manifest.yaml; do \
	  d=$$(basename $$(dirname $$m)); \
	  for s in $(DIALECT_SEEDS); do \
	    ./bin/outboxchaos chaos --adapter $$m --seed $$s --out $(RUNS)/chaos-dialects-$(STAMP)/$$d-$$s || bad="$$bad $$d-seed$$s(exit $$?)"; \
	  done; \
	done; \
	if [ -n "$$bad" ]; then echo "chaos-dialects: not passed:$$bad (runs in $(RUNS)/chaos-dialects-$(STAMP))"; exit 1; fi

# The catalog five times with different seeds, the dialects on three seeds
# (chaos-dialects), the long outages, then many generated schedules. The long outages run against the reference with no
# consumer, then real bullmq Workers (v5, v6) drain the queues it left:
# every valid event published, every job run once, "valid events failed: 0"
# (reference/bullmq TestOutageQueuesDrainedByRealWorkers; run folders under
# $(RUNS)). Against another ADAPTER they run through the CLI.
chaos-long: build node-deps chaos-dialects
	for i in 1 2 3 4 5; do ./bin/outboxchaos chaos --adapter $(ADAPTER) --seed $$i$$(date +%s) --out $(RUNS)/chaos-long-$(STAMP)-$$i || exit $$?; done
	if [ "$(ADAPTER)" = reference ]; then \
	  OUTBOXCHAOS_DRAIN_SCENARIOS="$(LONG_SCENARIOS)" OUTBOXCHAOS_DRAIN_OUT=$(abspath $(RUNS))/chaos-long-$(STAMP)-long \
	    $(GO) test -count=1 -timeout 60m -v -run TestOutageQueuesDrainedByRealWorkers ./reference/bullmq; \
	else \
	  for s in $(LONG_SCENARIOS); do ./bin/outboxchaos run --scenario $$s --adapter $(ADAPTER) --out $(RUNS)/chaos-long-$(STAMP)-long/$$s || exit $$?; done; \
	fi
	OUTBOXCHAOS_PROPERTY_CHECKS=50 $(GO) test -count=1 -timeout 60m -v -run TestPropertyReferenceKeepsEveryInvariant ./scenarios

bench: build
	./bin/outboxchaos bench --out $(RUNS)/bench-$(STAMP)

clean:
	rm -rf bin $(RUNS)
