# aicf — hostile input and sanitizers. Included from the Makefile (`include mk/hardening.mk`);
# uses its B, CC, WARN, LDLIBS, CUDA_HOME, PYTHON and AICF_TEST_DATA. See docs/hardening.md.
#
#   make fuzz             build the libFuzzer targets (clang) and run each for FUZZ_SECONDS
#                         (default 300), one after the other, one process each (no -jobs: that
#                         forks a worker logging to ./fuzz-0.log); new inputs go to
#                         $(B)/fuzz-work/<target>/, crashes / timeouts / OOMs / leaks to
#                         $(B)/fuzz-findings/<target>/. Fails if any target found something.
#   make fuzz-replay      the committed corpora and regressions through replayers built with
#                         $(CC) -fsanitize=address,undefined (no libFuzzer), plus the standalone
#                         reproducers in tests/fuzz/regressions/api/; `N passed, N failed`
#   make fuzz-replay-valgrind   the same corpora through plain replayers under valgrind
#   make fuzz-seeds       regenerate the seed inputs (tests/fuzz/make_seeds.py) in $(B)/fuzz-seeds/
#   make fuzz-merge       minimise committed corpus + seeds + fuzz-work (files under
#                         FUZZ_CORPUS_MAX_FILE bytes, default 4096, and the model-* seeds: keeps
#                         the corpora small) into
#                         tests/fuzz/corpus/ (libFuzzer -merge=1); review the diff before committing
#   make test-asan        CPU unit tests + node tests built with -fsanitize=address,undefined
#                         -fno-sanitize-recover=all in $(B)/asan/, and run
#   make test-valgrind    the same unit tests (the normal -O2 -g build) under valgrind
#                         --error-exitcode=1 --leak-check=full
#   (`make test` runs fuzz-replay, test-asan and test-tsan as counted parts of the CPU suite)
#   make test-tsan        tests/test_threads.c built with -fsanitize=thread, run in each mode of
#                         TSAN_MODES (default "default fallback errors"); fails on any report
#   make test-gpu-sanitize  (GPU machine) test_gpu_smoke and test_gpu_kernels under
#                         compute-sanitizer --tool memcheck|racecheck|initcheck|synccheck
#                         --error-exitcode 1; logs in $(OUT)/sanitize or $(B)/sanitize
#   make soak             (GPU machine) tests/soak_gpu.c: a million replays or SOAK_ARGS'
#                         --seconds (default 180), memory flat, outputs bitwise stable
#
# Variables: FUZZ_CC (clang), FUZZ_SECONDS, FUZZ_TARGETS, FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (per
# input, s, default 25), FUZZ_OPTS (extra libFuzzer flags, e.g. -fork=1 -ignore_crashes=1),
# FUZZ_DEFS (e.g. -DAICF_FUZZ_ALLOW_KNOWN=1: go past the bugs that have a regression file; rebuild
# with `touch tests/fuzz/fuzz_common.h` when changing it),
# VALGRIND, NODE_FILTER (a substring of node-test names for test-asan / test-valgrind),
# TSAN_MODES, TSAN_OPTS (more test_threads options), COMPUTE_SANITIZER, SANITIZE_TOOLS,
# SANITIZE_PROGRAMS, SANITIZE_KERNELS_ARGS (default --replays 20), SANITIZE_SMOKE_ARGS, OUT,
# SOAK_ARGS (e.g. "--seconds 600 --precision fp16").

FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 300
FUZZ_TARGETS  ?= onnx tensor_pb graph plan
FUZZ_RSS_MB   ?= 2048
FUZZ_TIMEOUT  ?= 25
FUZZ_OPTS     ?=
FUZZ_DEFS     ?=
FUZZ_CORPUS_MAX_FILE ?= 4096
VALGRIND      ?= valgrind
NODE_FILTER   ?=
FUZZ_MAX_LEN_onnx      := 131072
FUZZ_MAX_LEN_tensor_pb := 65536
FUZZ_MAX_LEN_graph     := 4096
FUZZ_MAX_LEN_plan      := 65536

HARD_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_DEPS   := aicf.h tests/fuzz/fuzz_common.h
# halt on the first report; leaks are errors; allocation failures come back as NULL (aicf must
# handle them) instead of aborting the process
HARD_ASAN_OPTIONS  := halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:abort_on_error=0
HARD_UBSAN_OPTIONS := print_stacktrace=1:halt_on_error=1
NODE_DIR := $(B)/onnx-node/node

.PHONY: fuzz fuzz-build fuzz-replay fuzz-replay-valgrind fuzz-seeds fuzz-merge test-asan test-valgrind \
        test-tsan test-gpu-sanitize soak

# ---- libFuzzer ----
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c99 $(WARN) $(FUZZ_CFLAGS) $(FUZZ_DEFS) $< -o $@ $(LDLIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)

fuzz: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(B)/fuzz-work/$$t $(B)/fuzz-findings/$$t; \
	  case $$t in onnx) ml=$(FUZZ_MAX_LEN_onnx);; tensor_pb) ml=$(FUZZ_MAX_LEN_tensor_pb);; plan) ml=$(FUZZ_MAX_LEN_plan);; *) ml=$(FUZZ_MAX_LEN_graph);; esac; \
	  echo "== fuzz $$t: $(FUZZ_SECONDS) s, -max_len=$$ml -rss_limit_mb=$(FUZZ_RSS_MB) -timeout=$(FUZZ_TIMEOUT)"; \
	  ASAN_OPTIONS=$(HARD_ASAN_OPTIONS) UBSAN_OPTIONS=$(HARD_UBSAN_OPTIONS) \
	  $(B)/fuzz/fuzz_$$t $(B)/fuzz-work/$$t tests/fuzz/corpus/$$t \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=$$ml -rss_limit_mb=$(FUZZ_RSS_MB) -timeout=$(FUZZ_TIMEOUT) \
	    -print_final_stats=1 -artifact_prefix=$(B)/fuzz-findings/$$t/ $(FUZZ_OPTS) \
	    > $(B)/fuzz-findings/$$t.log 2>&1 || status=1; \
	  grep -E "^(stat::|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written|Done)" $(B)/fuzz-findings/$$t.log | tail -n 20; \
	done; \
	ls -l $(B)/fuzz-findings/*/ 2>/dev/null | grep -E "crash-|timeout-|oom-|leak-|slow-unit-" || echo "fuzz: no findings"; \
	exit $$status

fuzz-seeds:
	rm -rf $(B)/fuzz-seeds
	$(PYTHON) tests/fuzz/make_seeds.py --out $(B)/fuzz-seeds --node $(NODE_DIR)

fuzz-merge: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(B)/fuzz-merged/$$t; mkdir -p $(B)/fuzz-merged/$$t tests/fuzz/corpus/$$t; \
	  case $$t in onnx) ml=$(FUZZ_MAX_LEN_onnx);; tensor_pb) ml=$(FUZZ_MAX_LEN_tensor_pb);; plan) ml=$(FUZZ_MAX_LEN_plan);; *) ml=$(FUZZ_MAX_LEN_graph);; esac; \
	  rm -rf $(B)/fuzz-merged/$$t.small; mkdir -p $(B)/fuzz-merged/$$t.small; \
	  for d in $(B)/fuzz-work/$$t $(B)/fuzz-seeds/$$t; do test -d $$d && \
	    find $$d -type f \( -size -$(FUZZ_CORPUS_MAX_FILE)c -o -name 'model-*' \) -exec cp {} $(B)/fuzz-merged/$$t.small/ \; ; done; \
	  src="$(B)/fuzz-merged/$$t.small"; \
	  ASAN_OPTIONS=$(HARD_ASAN_OPTIONS) $(B)/fuzz/fuzz_$$t -merge=1 -max_len=$$ml -rss_limit_mb=$(FUZZ_RSS_MB) \
	    -timeout=$(FUZZ_TIMEOUT) $(B)/fuzz-merged/$$t tests/fuzz/corpus/$$t $$src > $(B)/fuzz-merged/$$t.log 2>&1 \
	    || { tail -n 30 $(B)/fuzz-merged/$$t.log; exit 1; }; \
	  grep -E "MERGE-OUTER: [0-9]+ new files" $(B)/fuzz-merged/$$t.log; \
	  rm -f tests/fuzz/corpus/$$t/*; cp $(B)/fuzz-merged/$$t/* tests/fuzz/corpus/$$t/; \
	  echo "$$t: $$(ls tests/fuzz/corpus/$$t | wc -l) files, $$(du -sk tests/fuzz/corpus/$$t | cut -f1) KiB"; \
	done

# ---- corpus replay (no libFuzzer) ----
$(B)/asan/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -g -O1 $(HARD_SAN) tests/fuzz/fuzz_$*.c tests/fuzz/replay_main.c -o $@ $(LDLIBS)

# standalone reproducers of reported bugs: each exits 0 once aicf handles its case
REGRESSION_API := $(patsubst tests/fuzz/regressions/api/%.c,$(B)/asan/regress_%,$(wildcard tests/fuzz/regressions/api/*.c))
$(B)/asan/regress_%: tests/fuzz/regressions/api/%.c aicf.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -g -O1 $(HARD_SAN) $< -o $@ $(LDLIBS)

fuzz-replay: $(FUZZ_TARGETS:%=$(B)/asan/replay_%) $(REGRESSION_API)
	@pass=0; fail=0; for r in $(REGRESSION_API); do \
	  if ASAN_OPTIONS=$(HARD_ASAN_OPTIONS) UBSAN_OPTIONS=$(HARD_UBSAN_OPTIONS) $$r > $$r.log 2>&1; then pass=$$((pass + 1)); \
	  else fail=$$((fail + 1)); echo "FAIL $$r (log $$r.log): $$(grep -m1 -E 'ERROR: |runtime error|FAIL' $$r.log)"; fi; \
	done; echo "regressions/api: $$pass passed, $$fail failed"; \
	for t in $(FUZZ_TARGETS); do \
	  dirs="tests/fuzz/corpus/$$t"; test -d tests/fuzz/regressions/$$t && dirs="$$dirs tests/fuzz/regressions/$$t"; \
	  line=$$(ASAN_OPTIONS=$(HARD_ASAN_OPTIONS) UBSAN_OPTIONS=$(HARD_UBSAN_OPTIONS) \
	          $(B)/asan/replay_$$t $$dirs 2>$(B)/asan/replay_$$t.log | tee -a $(B)/asan/replay_$$t.out | tail -n 1); \
	  echo "replay $$t ($$dirs): $$line"; \
	  grep "^FAIL" $(B)/asan/replay_$$t.out | sort -u; rm -f $(B)/asan/replay_$$t.out; \
	  p=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p'); \
	  f=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p'); \
	  pass=$$((pass + $${p:-0})); fail=$$((fail + $${f:-1})); \
	done; \
	echo "(sanitizer reports: $(B)/asan/replay_<target>.log)"; \
	echo "$$pass passed, $$fail failed"; test $$fail -eq 0

# the same corpora under valgrind (plain -O1 -g replayers: uninitialised reads of outputs or
# arena bytes, which ASan does not see; every output byte is consumed by the harness)
$(B)/fuzz-plain/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -g -O1 tests/fuzz/fuzz_$*.c tests/fuzz/replay_main.c -o $@ $(LDLIBS)

fuzz-replay-valgrind: $(FUZZ_TARGETS:%=$(B)/fuzz-plain/replay_%)
	@pass=0; fail=0; for t in $(FUZZ_TARGETS); do \
	  dirs="tests/fuzz/corpus/$$t"; test -d tests/fuzz/regressions/$$t && dirs="$$dirs tests/fuzz/regressions/$$t"; \
	  line=$$($(VALGRIND) -q --error-exitcode=1 --leak-check=full --track-origins=yes \
	          $(B)/fuzz-plain/replay_$$t --timeout 600 $$dirs 2>$(B)/fuzz-plain/replay_$$t.log | tee $(B)/fuzz-plain/replay_$$t.out | tail -n 1); \
	  echo "valgrind replay $$t: $$line"; grep "^FAIL" $(B)/fuzz-plain/replay_$$t.out; \
	  p=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p'); \
	  f=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p'); \
	  pass=$$((pass + $${p:-0})); fail=$$((fail + $${f:-1})); \
	done; echo "(valgrind reports: $(B)/fuzz-plain/replay_<target>.log)"; \
	echo "$$pass passed, $$fail failed"; test $$fail -eq 0

# ---- unit tests under ASan + UBSan ----
# test_limits runs without its two big at-the-limit graphs here (AICF_LIMITS_BIG=0: 0.5 and 0.8
# GB plain, 2-3x that under ASan or valgrind; the plain build in `make test` runs them)
HARD_TESTS := test_core test_onnx test_ops test_cuda_fake test_errors test_limits test_threads
HARD_ENV   := AICF_LIMITS_BIG=0 AICF_FAKE_CUDA=$(B)/fakecuda/libcuda.so.1

$(B)/asan/test_%: tests/test_%.c aicf.h $(KTABLE)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -g -O1 $(HARD_SAN) $(if $(filter test_cuda_fake,$(notdir $@)),$(if $(wildcard $(CUDA_HOME)/include/cuda.h),-I$(CUDA_HOME)/include)) $< -o $@ $(LDLIBS)

$(B)/asan/node_tests: tests/node_tests.c aicf.h $(KTABLE)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -g -O1 $(HARD_SAN) $< -o $@ $(LDLIBS)

$(NODE_DIR):
	mkdir -p $(B)/onnx-node
	tar -xzf $(AICF_TEST_DATA)/onnx-node-1.23.1.tar.gz -C $(B)/onnx-node

# Runs each test binary (prefix $(1): a wrapper such as valgrind; $(2): directory of the
# binaries) and sums their `N passed, N failed` lines; a non-zero exit is one more failure.
define HARD_RUN
	@pass=0; fail=0; for t in $(HARD_TESTS) node_tests; do \
	  if [ $$t = node_tests ]; then args="$(NODE_DIR) --backend cpu $(if $(NODE_FILTER),--filter $(NODE_FILTER))"; else args=""; fi; \
	  $(1) $(2)/$$t $$args > $(2)/$$t$(3).log 2>&1; rc=$$?; \
	  line=$$(grep -E "[0-9]+ passed, [0-9]+ failed" $(2)/$$t$(3).log | tail -n 1); \
	  p=$$(echo "$$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\1/p'); \
	  f=$$(echo "$$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*/\2/p'); \
	  if [ -z "$$line" ]; then p=0; f=1; fi; \
	  if [ $$rc -ne 0 ] && [ "$${f:-0}" -eq 0 ]; then f=1; fi; \
	  echo "$$t: $${line:-no result line} (exit $$rc; log $(2)/$$t$(3).log)"; \
	  if [ $$rc -ne 0 ]; then grep -E "ERROR: |runtime error|Invalid (read|write)|uninitialised|definitely lost|FAIL" $(2)/$$t$(3).log | head -n 8; fi; \
	  pass=$$((pass + $${p:-0})); fail=$$((fail + $${f:-0})); \
	done; echo "$$pass passed, $$fail failed"; test $$fail -eq 0
endef

test-asan: $(HARD_TESTS:%=$(B)/asan/%) $(B)/asan/node_tests $(B)/fakecuda/libcuda.so.1 | $(NODE_DIR)
	$(call HARD_RUN,env $(HARD_ENV) ASAN_OPTIONS=$(HARD_ASAN_OPTIONS) UBSAN_OPTIONS=$(HARD_UBSAN_OPTIONS),$(B)/asan,)

test-valgrind: $(HARD_TESTS:%=$(B)/%) $(B)/node_tests $(B)/fakecuda/libcuda.so.1 | $(NODE_DIR)
	$(call HARD_RUN,env $(HARD_ENV) $(VALGRIND) -q --error-exitcode=1 --leak-check=full --track-origins=yes --suppressions=tests/fuzz/valgrind.supp,$(B),.valgrind)

# ---- threads under ThreadSanitizer (CPU) ----
# tests/test_threads.c: 8 threads on one context, each with its own graph, plan and exec
# (thousands of replays, bitwise equal to a single-threaded reference, graphs built and planned
# meanwhile), in each mode of TSAN_MODES:
#   default    the documented usage, CPU backend
#   fallback   the same with AICF_BACKEND_DEFAULT + allow_cpu_fallback on a context without CUDA
#              (the README's embedding): each aicf_plan_create writes the context's message
#   errors     failing calls on the shared context from every thread, each reading its own message
# A mode fails on any ThreadSanitizer report or failed check.
TSAN_MODES   ?= default fallback errors
TSAN_OPTS    ?=
TSAN_FLAGS   := -g -O1 -fsanitize=thread -fno-omit-frame-pointer
TSAN_OPTIONS_RUN := halt_on_error=0:second_deadlock_stack=1:exitcode=66

$(B)/tsan/test_threads: tests/test_threads.c aicf.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) $(TSAN_FLAGS) $< -o $@ $(LDLIBS)

test-tsan: $(B)/tsan/test_threads
	@pass=0; fail=0; for m in $(TSAN_MODES); do \
	  case $$m in default) a="";; *) a="--$$m";; esac; \
	  log=$(B)/tsan/test_threads.$$m.log; \
	  TSAN_OPTIONS=$(TSAN_OPTIONS_RUN) $(B)/tsan/test_threads $$a $(TSAN_OPTS) > $$log 2>&1; rc=$$?; \
	  races=$$(grep -c "WARNING: ThreadSanitizer" $$log); \
	  line=$$(grep -E "^[0-9]+ passed, [0-9]+ failed" $$log | tail -n 1); \
	  if [ $$rc -eq 0 ] && [ $$races -eq 0 ] && [ -n "$$line" ]; then pass=$$((pass + 1)); st=ok; else fail=$$((fail + 1)); st=FAIL; fi; \
	  echo "$$st test_threads $$a: $${line:-no result line}, $$races ThreadSanitizer reports (exit $$rc; log $$log)"; \
	  if [ $$races -gt 0 ]; then grep -m1 -A6 "WARNING: ThreadSanitizer" $$log | sed 's/^/    /'; fi; \
	done; echo "$$pass passed, $$fail failed"; test $$fail -eq 0

# ---- GPU: compute-sanitizer over the kernel tests (GPU machine) ----
# Four runs per program (SANITIZE_TOOLS), each with --error-exitcode 1; logs (the tool's report
# and the program's output) in $(OUT)/sanitize when OUT is set, else $(B)/sanitize.
# test_gpu_kernels has no case filter: SANITIZE_KERNELS_ARGS shortens its replay test instead
# (default --replays 20; the kernel cases all run, each on small shapes).
COMPUTE_SANITIZER ?= $(firstword $(wildcard $(CUDA_HOME)/bin/compute-sanitizer $(CUDA_HOME)/compute-sanitizer/compute-sanitizer) compute-sanitizer)
SANITIZE_TOOLS        ?= memcheck racecheck initcheck synccheck
SANITIZE_PROGRAMS     ?= test_gpu_smoke test_gpu_kernels
SANITIZE_KERNELS_ARGS ?= --replays 20
SANITIZE_SMOKE_ARGS   ?=
SANITIZE_DIR = $(if $(OUT),$(OUT)/sanitize,$(B)/sanitize)
SANITIZE_TOOL_OPTS_memcheck  := --leak-check full
SANITIZE_TOOL_OPTS_racecheck := --racecheck-report all
SANITIZE_TOOL_OPTS_initcheck :=
SANITIZE_TOOL_OPTS_synccheck :=

test-gpu-sanitize: $(SANITIZE_PROGRAMS:%=$(B)/%)
	@mkdir -p $(SANITIZE_DIR); pass=0; fail=0; \
	for t in $(SANITIZE_TOOLS); do for p in $(SANITIZE_PROGRAMS); do \
	  case $$p in test_gpu_kernels) a="$(SANITIZE_KERNELS_ARGS)";; test_gpu_smoke) a="$(SANITIZE_SMOKE_ARGS)";; *) a="";; esac; \
	  case $$t in memcheck) o="$(SANITIZE_TOOL_OPTS_memcheck)";; racecheck) o="$(SANITIZE_TOOL_OPTS_racecheck)";; \
	    initcheck) o="$(SANITIZE_TOOL_OPTS_initcheck)";; *) o="$(SANITIZE_TOOL_OPTS_synccheck)";; esac; \
	  log=$(SANITIZE_DIR)/$$p.$$t; start=$$(date +%s); \
	  $(COMPUTE_SANITIZER) --tool $$t $$o --error-exitcode 1 --print-limit 50 --log-file $$log.sanitizer.log \
	    $(B)/$$p $$a > $$log.out 2>&1; rc=$$?; \
	  line=$$(grep -E "[0-9]+ passed, [0-9]+ failed" $$log.out | tail -n 1); \
	  summary=$$(grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" $$log.sanitizer.log | tr '\n' ' '); \
	  if [ $$rc -eq 0 ]; then pass=$$((pass + 1)); st=ok; else fail=$$((fail + 1)); st=FAIL; fi; \
	  echo "$$st $$t $$p $$a: $${line:-no result line}; $${summary:-no summary} (exit $$rc, $$(( $$(date +%s) - start )) s; $$log.*)"; \
	done; done; echo "$$pass passed, $$fail failed"; test $$fail -eq 0

# ---- GPU soak: a million replays or SOAK_ARGS' time budget (tests/soak_gpu.c) ----
SOAK_ARGS ?=
soak: $(B)/soak_gpu
	$(B)/soak_gpu $(SOAK_ARGS)
