# codeflare-operator: build, test and a local demo. The scripts behind the targets live in test/harness/.
#
#   make build    install the Debian packages (test/harness/install-deps.sh), configure and build with CMake
#   make test     build, build kube-apiserver 1.20 (cached), build the two sanitizer folders, then run ctest three
#                 times: the unit tests and the fuzz-corpus replays under ASan + UBSan (SANITIZE_DIR, `make
#                 sanitize` alone), the runtime and operator unit tests under ThreadSanitizer (TSAN_DIR, `make
#                 tsan` alone), then the unit tests, replays, the source checks (label lint: layering, clang-tidy)
#                 and the integration tests against a local control plane (ctest fixture,
#                 test/integration/CMakeLists.txt). The main and TSan builds turn warnings into errors (WERROR).
#   make sanitize the unit tests and the replays of test/fuzz/ (corpus and regressions) under ASan + UBSan, in
#                 SANITIZE_DIR (configured with -DCFO_SANITIZE=address; no integration tests, no benchmarks)
#   make tsan     the unit tests of the threaded layers (unit_runtime, unit_operator) under ThreadSanitizer, in
#                 TSAN_DIR (-DCFO_SANITIZE=thread; builds only those two tests and the libraries they link)
#   make lint     the source checks of the build folder (ctest -L lint): the layering check and its self-test,
#                 clang-tidy-19 on the sources changed since test/lint/tidy-baseline, and clang-format-19 on every
#                 source (-DCFO_FORMAT_CHECK=OFF turns that off; docs/testing.md "Guardrails")
#   make tidy-all clang-tidy-19 on every controller/ source (about 14 min on 2 cores; then move the baseline)
#   make format   reformat the C++ sources with clang-format-19 (hack/format.sh; --check: make format-check)
#   make fuzz     coverage-guided fuzzing with libFuzzer (clang 19, installed when missing): every harness of
#                 test/fuzz/ (or FUZZ_TARGET) for FUZZ_SECONDS each (test/harness/fuzz.sh), in FUZZ_DIR
#   make run      the operator against a local control plane, fed with config/samples/, left running until Ctrl-C
#                 (test/harness/run-demo.sh); builds only the binary
#   make operator build only the codeflare-operator binary
#   make render   `codeflare-operator render` of each sample in config/samples/
#   make bench    validation throughput: ours (schema only, full rules) and python3-jsonschema (bench/), then
#                 `codeflare-operator validate` end to end next to a Python lint step (bench/validate-e2e-bench.sh)
#   make bench-reconcile [PEER=1] [BENCH_N=N]
#                 the operator (default flags) on N CodeFlareWorkloads on a local control plane: objects/s,
#                 requests, CPU and RSS per workload, start-up with N existing (bench/reconcile-bench.sh); PEER=1
#                 adds the bare-client floor and client-go's sample-controller on the same control plane
#   make bench-webhook  admission latency (p50/p99) of the CodeFlareWorkload webhook through a local apiserver
#   make clean    stop control planes left in the build folder and remove it
#
# Variables:
#   BUILD_DIR      build folder (default build)
#   UPSTREAM_CRDS  folder laid out like shared/crds (upstream/ and apiserver-1.20/); when empty, the pinned
#                  upstream CRDs are downloaded once by test/harness/fetch-upstream-crds.sh (needs network)
#   CFO_SHARED_DIR the shared test-data folder (samples, cases); optional, tests that need it skip without it
#   JOBS           parallel compile jobs (default 2)
#   CMAKE_FLAGS    extra cmake configure flags of BUILD_DIR, e.g. -DCFO_FORMAT_CHECK=OFF
#   WERROR         1 (default): compiler warnings are errors in BUILD_DIR and TSAN_DIR (-DCFO_WERROR=ON); 0:
#                  warnings only. SANITIZE_DIR (ASan + UBSan at -O1, every target) is not under it yet: not built
#                  with it so far
#   BENCH_N        iterations of `make bench` (default 2000; python3-jsonschema runs N/20); for bench-reconcile,
#                  the number of workloads when given (default 500)
#   PEER           1: bench-reconcile also runs the floor and the peer (sample-controller, built once and cached)
#   BENCH_TIMEOUT  bench-reconcile: seconds after which a phase gives up and prints the figures of the workloads
#                  done so far (default 120 + N/2)
#   SANITIZE_DIR   build folder of the ASan + UBSan build (default $(BUILD_DIR)-asan)
#   TSAN_DIR       build folder of the ThreadSanitizer build (default $(BUILD_DIR)-tsan)
#   FUZZ_DIR       build folder of `make fuzz` (default $(BUILD_DIR)-fuzz); FUZZ_SECONDS per harness (default 60);
#                  FUZZ_TARGET one harness (yaml json quantity label_selector cel kubeconfig watch_event validate
#                  workload; default all)

BUILD_DIR ?= build
UPSTREAM_CRDS ?=
CFO_SHARED_DIR ?=
JOBS ?= 2
CMAKE_FLAGS ?=
BENCH_N ?= 2000
PEER ?= 0
BENCH_TIMEOUT ?=
# bench-reconcile's N: BENCH_N when it was given (command line or environment), else 500.
BENCH_RECONCILE_N := $(if $(filter file,$(origin BENCH_N)),500,$(BENCH_N))
SANITIZE_DIR ?= $(BUILD_DIR)-asan
TSAN_DIR ?= $(BUILD_DIR)-tsan
WERROR ?= 1
WERROR_FLAG := -DCFO_WERROR=$(if $(filter 1,$(WERROR)),ON,OFF)
FUZZ_DIR ?= $(BUILD_DIR)-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?=

HARNESS := test/harness
MAKEFLAGS += --no-print-directory
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

# Shell snippet for recipes: sets $crds to UPSTREAM_CRDS, or to the folder fetch-upstream-crds.sh prepares.
resolve_crds = crds="$(UPSTREAM_CRDS)"; if [[ -z "$$crds" ]]; then crds="$$($(HARNESS)/fetch-upstream-crds.sh | tail -n1)"; fi

.PHONY: all deps configure build operator sanitize-build tsan-build kube-apiserver upstream-crds test sanitize tsan \
        lint tidy-all format format-check fuzz run render bench bench-reconcile bench-webhook clean

all: build

deps:
	@$(HARNESS)/install-deps.sh

# The upstream CRDs are resolved first: the binary ships their schemas (hack/bundle-upstream-crds.py).
configure: deps
	@$(resolve_crds); \
	UPSTREAM_CRDS="$$crds" CFO_SHARED_DIR="$(CFO_SHARED_DIR)" cmake -S . -B $(BUILD_DIR) $(WERROR_FLAG) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

operator: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target codeflare-operator

# The ASan + UBSan build: unit tests and fuzz replays only (any sanitizer report aborts the test). -O1 -g1: quicker
# to build than the main folder's -O2 -g, with line numbers in the reports.
sanitize-build: deps
	cmake -S . -B $(SANITIZE_DIR) -DCFO_SANITIZE=address -DCFO_INTEGRATION_TESTS=OFF -DCFO_BUILD_BENCH=OFF \
	  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" >/dev/null
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

# The ThreadSanitizer build: the unit tests of the layers that run threads (runtime: informers, work queue, leader
# election, HTTP server; operator: the controller over them) and only the libraries they link; no fuzz replays, no
# integration tests, no benchmarks. -O1 -g1 as above. tsan_selftest checks that a deliberate race is reported.
tsan-build: deps
	cmake -S . -B $(TSAN_DIR) -DCFO_SANITIZE=thread -DCFO_UNIT_LAYERS="runtime;operator" -DCFO_FUZZ_REPLAYS=OFF \
	  -DCFO_INTEGRATION_TESTS=OFF -DCFO_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  $(WERROR_FLAG) >/dev/null
	cmake --build $(TSAN_DIR) -j $(JOBS) --target unit_runtime unit_operator tsan_selftest

kube-apiserver: deps
	@echo "kube-apiserver and etcd in: $$($(HARNESS)/build-kube-apiserver.sh | tail -n1)"

upstream-crds:
	@$(resolve_crds); echo "upstream CRDs in: $$crds"

test: build kube-apiserver sanitize-build tsan-build
	@$(resolve_crds); \
	export UPSTREAM_CRDS="$$crds" CFO_SHARED_DIR="$(CFO_SHARED_DIR)"; \
	cmake -S . -B $(BUILD_DIR) >/dev/null; \
	rc=0; \
	echo "== unit tests and fuzz replays under ASan + UBSan ($(SANITIZE_DIR))"; \
	ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS) || rc=1; \
	echo "== runtime and operator unit tests under ThreadSanitizer ($(TSAN_DIR))"; \
	ctest --test-dir $(TSAN_DIR) --output-on-failure -j $(JOBS) || rc=1; \
	echo "== unit, replay, lint and integration tests ($(BUILD_DIR))"; \
	ctest --test-dir $(BUILD_DIR) --output-on-failure || rc=1; \
	exit $$rc

sanitize: sanitize-build
	@$(resolve_crds); \
	export UPSTREAM_CRDS="$$crds" CFO_SHARED_DIR="$(CFO_SHARED_DIR)"; \
	ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS)

tsan: tsan-build
	@$(resolve_crds); \
	export UPSTREAM_CRDS="$$crds" CFO_SHARED_DIR="$(CFO_SHARED_DIR)"; \
	ctest --test-dir $(TSAN_DIR) --output-on-failure -j $(JOBS)

# The source checks need a configured folder (compile_commands.json for clang-tidy), not a build.
lint: configure
	ctest --test-dir $(BUILD_DIR) -L lint --output-on-failure

tidy-all: configure
	test/lint/clang_tidy.sh $(BUILD_DIR) --all

format:
	hack/format.sh

format-check:
	hack/format.sh --check

fuzz: deps
	@$(resolve_crds); \
	export UPSTREAM_CRDS="$$crds"; \
	$(HARNESS)/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGET)

run: operator kube-apiserver
	@$(resolve_crds); \
	export UPSTREAM_CRDS="$$crds" CFO_SHARED_DIR="$(CFO_SHARED_DIR)"; \
	$(HARNESS)/run-demo.sh $(BUILD_DIR)

render: operator
	@$(resolve_crds); \
	failed=0; \
	for f in config/samples/*.yaml; do \
	  [[ "$$(basename "$$f")" == kustomization.yaml ]] && continue; \
	  echo "# ===== $$f"; \
	  $(BUILD_DIR)/controller/cmd/codeflare-operator render -f "$$f" --crds "$$crds" || failed=1; \
	done; \
	exit $$failed

bench: build
	@$(resolve_crds); $(BUILD_DIR)/bench/validate_bench --crds "$$crds" -n $(BENCH_N); \
	echo; bench/validate-e2e-bench.sh $(BUILD_DIR) "$$crds"

bench-reconcile: operator kube-apiserver
	@$(resolve_crds); export UPSTREAM_CRDS="$$crds"; \
	bench/reconcile-bench.sh $(BUILD_DIR) -n $(BENCH_RECONCILE_N) $(if $(filter 1,$(PEER)),--peer) \
	  $(if $(BENCH_TIMEOUT),--timeout $(BENCH_TIMEOUT))

bench-webhook: build kube-apiserver
	@$(resolve_crds); bench/webhook_latency.sh $(BUILD_DIR) "$$crds" -n $(BENCH_N)

clean:
	@for s in $(BUILD_DIR)/control-plane $(BUILD_DIR)/run-control-plane $(BUILD_DIR)/bench-reconcile/control-plane \
	  $(BUILD_DIR)/bench-reconcile-test/control-plane $(BUILD_DIR)/bench-control-plane; do \
	  if [[ -d "$$s" ]]; then $(HARNESS)/control-plane.sh stop "$$s"; fi; \
	done
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(TSAN_DIR) $(FUZZ_DIR)
