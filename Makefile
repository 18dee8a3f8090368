# aicf — GNU Make build.
#
#   make                 kernel table (if its inputs changed) + aicf.h + header checks + build/aicf + examples
#   make test            the CPU test suite (what CI runs); ends with "N passed, N failed"
#   make test-gpu        the GPU suite (needs an NVIDIA GPU and driver)
#   make kernels SM="80 90"   regenerate the kernel table for chosen SM targets (PTX for the newest)
#   make dist            dist/aicf.h: one header with the kernel table inlined
#   make bench           bench/run.sh: peers.py side by side, the model set, the GEMM check (GPU
#                        machine; BENCH_ARGS="--iters 300 --no-compile"); make bench-build builds only
#
# Variables: CC, CXX, PYTHON, SM (cubin targets), PTX (PTX target, default: newest of SM),
#            AICF_TEST_DATA (default ../shared/data).

CC      ?= cc
CXX     ?= c++
PYTHON  ?= python3
SM      ?= 80 86 89 90
PTX     ?= $(lastword $(SM))
AICF_TEST_DATA ?= $(abspath ../shared/data)
export AICF_TEST_DATA

WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
LDLIBS  := -ldl -lm -lpthread
B       := build

SRC_PARTS := $(sort $(wildcard src/*.h src/*.c))
CODEGEN   := $(wildcard codegen/*.py)
KTABLE    := kernels_gen/aicf_kernels.h

.PHONY: all kernels dist test test-gpu check-header clean conformance

all: $(KTABLE) aicf.h check-header $(B)/aicf $(B)/embed_minimal

# The library is developed as parts in src/ and amalgamated into the single header aicf.h.
aicf.h: $(SRC_PARTS)
	cat $(SRC_PARTS) > $@.tmp && mv $@.tmp $@

# Kernel table: regenerated when templates, variant lists or the generator change. gen.py only
# rewrites the header when its content changes, so a stamp file records the last run.
KT_DEPS  := $(wildcard templates/*.j2) $(CODEGEN)
GENFLAGS  = --sm "$(SM)" --ptx "$(PTX)" --out kernels_gen --cache $(B)/kcache --pack u64
$(KTABLE): $(B)/.kernels-stamp ;
$(B)/.kernels-stamp: $(KT_DEPS) | $(B)
	$(PYTHON) codegen/gen.py $(GENFLAGS) --allow-no-nvrtc
	touch $@

kernels:
	$(PYTHON) codegen/gen.py $(GENFLAGS)
	touch $(B)/.kernels-stamp

dist: $(KTABLE) aicf.h
	$(PYTHON) codegen/dist.py --header aicf.h --table $(KTABLE) --out dist/aicf.h

$(B):
	mkdir -p $(B)

# Compile matrix: C99 and C++17, gcc and clang when present, declarations alone (no CUDA headers
# on the include path), the header included twice with the implementation once, and with the
# CUDA backend compiled out (AICF_NO_CUDA; tests/test_nocuda.c runs that build).
check-header: $(B)/.header-ok
$(B)/.header-ok: aicf.h $(KTABLE) tests/header_twice.c tests/header_decl.c | $(B)
	@cat $(SRC_PARTS) | cmp -s - aicf.h || { echo "aicf.h differs from src/: run 'make aicf.h' and commit it"; exit 1; }
	$(CC) -std=c99 $(WARN) -c tests/header_decl.c -o $(B)/header_decl_c.o
	$(CC) -std=c99 $(WARN) -c tests/header_twice.c -o $(B)/header_twice_c.o
	$(CXX) -x c++ -std=c++17 $(WARN) -c tests/header_twice.c -o $(B)/header_twice_cpp.o
	$(CC) -std=c99 $(WARN) -DAICF_NO_CUDA -c tests/header_twice.c -o $(B)/header_nocuda_c.o
	$(CXX) -x c++ -std=c++17 $(WARN) -DAICF_NO_CUDA -c tests/header_twice.c -o $(B)/header_nocuda_cpp.o
	if command -v clang >/dev/null 2>&1; then \
	  clang -std=c99 $(WARN) -c tests/header_twice.c -o $(B)/header_twice_clang.o && \
	  clang -x c++ -std=c++17 $(WARN) -c tests/header_twice.c -o $(B)/header_twice_clangpp.o && \
	  clang -std=c99 $(WARN) -DAICF_NO_CUDA -c tests/header_twice.c -o $(B)/header_nocuda_clang.o; \
	else echo "check-header: clang not installed, gcc only"; fi
	touch $@

$(B)/aicf: examples/aicf.c aicf.h $(KTABLE) | $(B)
	$(CC) -std=c99 $(WARN) $(CFLAGS) $< -o $@ $(LDLIBS)

$(B)/embed_minimal: examples/embed_minimal.c aicf.h $(KTABLE) | $(B)
	$(CC) -std=c99 $(WARN) $(CFLAGS) $< -o $@ $(LDLIBS)

# ---- tests ----
TEST_BINS := $(patsubst tests/%.c,$(B)/%,$(wildcard tests/test_*.c)) $(B)/node_tests $(B)/onnx_dump
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer

$(B)/%: tests/%.c aicf.h $(KTABLE) | $(B)
	$(CC) -std=c99 $(WARN) $(CFLAGS) $< -o $@ $(LDLIBS)

# the header checks of test_cuda_fake compare re-declared CUDA types with the real headers
CUDA_HOME ?= /usr/local/cuda
$(B)/test_cuda_fake: CFLAGS += $(if $(wildcard $(CUDA_HOME)/include/cuda.h),-I$(CUDA_HOME)/include)

$(B)/fakecuda/libcuda.so.1: tests/fake_libcuda.c | $(B)
	mkdir -p $(B)/fakecuda
	$(CC) -std=c99 $(WARN) -shared -fPIC $< -o $@

test: all $(TEST_BINS) $(B)/fakecuda/libcuda.so.1
	$(PYTHON) tests/run_tests.py --suite cpu --build $(B)

test-gpu: all $(TEST_BINS)
	$(PYTHON) tests/run_tests.py --suite gpu --build $(B)

conformance: all $(B)/node_tests
	$(PYTHON) tests/run_tests.py --suite conformance --build $(B)

clean:
	rm -rf $(B) dist

# ---- benchmarks (bench/, docs/benchmarks.md); running them needs an NVIDIA GPU ----
.PHONY: bench bench-build
bench-build: all $(B)/gemm_direct $(B)/gemvp_timeline

$(B)/gemm_direct: bench/gemm_direct.c aicf.h $(KTABLE) | $(B)
	$(CC) -std=c99 $(WARN) $(CFLAGS) $< -o $@ $(LDLIBS)

$(B)/gemvp_timeline: bench/gemvp_timeline.c aicf.h $(KTABLE) | $(B)
	$(CC) -std=c99 $(WARN) $(CFLAGS) $< -o $@ $(LDLIBS)

# cuBLASLt alone (not in bench-build: links the toolkit's libcublasLt and libcuda)
$(B)/lt_probe: bench/lt_probe.c | $(B)
	$(CC) -std=c99 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) -I$(CUDA_HOME)/include $< -o $@ -L$(CUDA_HOME)/lib64 -lcublasLt -lcuda

bench:
	bench/run.sh $(BENCH_ARGS)

# fuzzing, sanitizer and valgrind targets (docs/hardening.md)
include mk/hardening.mk
