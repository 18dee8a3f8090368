/* aicf.h — run neural networks inside real-time C and C++ programs on NVIDIA GPUs.

   Header-only, single file. In exactly ONE C or C++ file:

       #define AICF_IMPLEMENTATION
       #include "aicf.h"

   and include "aicf.h" without the define everywhere else. Link with -ldl -lm (and -pthread
   where the C library keeps threads apart: glibc before 2.34; or define AICF_NO_THREADS). There is no
   link-time CUDA dependency: libcuda.so.1 and libcublasLt are loaded at run time with dlopen;
   without them the CPU reference backend still works. The generated kernel table is included
   from "kernels_gen/aicf_kernels.h" next to this file (`make dist` writes one header with the
   table inlined, for vendoring a single file).

   WHAT IT DOES
   ============
       ONNX file / C graph builder
             |  load, validate                       aicf_graph: what to compute
             v
       aicf_plan_create: infer shapes, fold constants and Shape ops, fold BatchNormalization
       into Conv, drop dead nodes, alias Reshape-like ops (and Split outputs / Concat inputs as
       views where they are contiguous pieces), absorb a MatMul's transposed B (attention's
       K^T) into its addressing, fuse attention (QK^T, scale, mask, Softmax, .V: one ONNX
       Attention step reading the heads through strides), make the exported GELU (Div Erf Add
       Mul Mul) one Gelu, fuse elementwise epilogues, fold a LayerNormalization into the
       MatMul that reads it (one Hopper GEMM launch at float16) and the one after a MatMul + bias
       + residual into that GEMM (whole rows a CTA cluster), plan memory (one arena, lifetimes,
       greedy placements then a bounded local search), pick a kernel for every step (rules,
       pins, or timed on the device: autotune) and record why
             |                                       aicf_plan: how, fixed ahead of time
             v
       aicf_exec_create: device buffers + ONE CUDA graph (copy-in, kernels, cuBLASLt calls,
       copy-out), instantiated once            aicf_exec
             |
             v  aicf_exec_run: one cuGraphLaunch + wait. No allocation, no decision.

   The CPU reference executor runs the same plan in plain C with float32 arithmetic. It is the
   oracle the GPU kernels are tested against and the fallback where no NVIDIA driver exists.

   STEP BY STEP
   ============
       aicf_context* ctx;   aicf_context_create(NULL, &ctx);          // NULL desc = defaults
       aicf_graph* g;       aicf_graph_load_onnx(ctx, "model.onnx", NULL, &g);
       aicf_graph_bind_dim(g, "batch", 1);                           // symbolic dims
       aicf_plan_desc pd = {0};                                       // zero = defaults
       pd.backend = AICF_BACKEND_DEFAULT;                             // CUDA, else error...
       pd.policy.allow_cpu_fallback = 1;                              // ...or the CPU reference
       pd.policy.precision = AICF_PRECISION_FP16;                     // fp32 / tf32 / fp16
       aicf_plan* plan;     aicf_plan_create(g, &pd, &plan);
       aicf_graph_destroy(g);                                         // the plan keeps a copy
       aicf_exec* ex;       aicf_exec_create(plan, NULL, &ex);
       for (;;) {                                                     // every frame / tick
           aicf_exec_set_input(ex, 0, obs, sizeof obs);               // host memory, float32
           aicf_exec_run(ex);                                         // one graph launch
           aicf_exec_get_output(ex, 0, act, sizeof act);
       }
       aicf_exec_destroy(ex); aicf_plan_destroy(plan); aicf_context_destroy(ctx);

   Graphs can also be built in C: aicf_graph_add_input / _add_constant / _add_node (an ONNX
   operator with named inputs, outputs and attributes) / _add_output. Every create function
   takes a desc struct in which zero means default.

   ERROR REPORTING
   ===============
   Every fallible function returns an aicf_result (0 = AICF_SUCCESS, errors negative, see
   AICF_RESULTS). aicf_result_str() describes a code; aicf_last_error(ctx) gives the message of
   the last failure on that context, naming the node, tensor or field, e.g.
       node 12 'attn.qkv' (MatMul): input 1 shape [256,64] does not match [64,128]
       onnx: GraphProto.node[3] (NodeProto.attribute[0]): truncated varint at byte 812
   A failed call leaves the context usable and the caller's data untouched. aicf never aborts
   the host process on bad input, and treats model files as untrusted (bounds-checked protobuf
   reading, overflow-checked sizes, the limits below).

   LIMITS (AICF_MAX_*)
   ===================
   rank 8; 4096-byte names; 2^20 nodes; 2^21 tensors; 4096 inputs/outputs per node in a graph,
   64 per node the planner runs (AICF_MAX_STEP_IO); 2^24 elements per attribute; 2^40 bytes per
   tensor; 8 levels of nested subgraphs (AICF_MAX_SUBGRAPH_DEPTH). Beyond them:
   AICF_ERROR_LIMIT, naming the node, tensor or field.

   PRECISION AND DETERMINISM
   =========================
   fp32: float32 storage and arithmetic. tf32: GEMMs on TF32 tensor cores. fp16: weights and
   activations stored as IEEE binary16, arithmetic and accumulation in float32; inputs and
   outputs stay float32 at the API (cast steps at the boundary). The same plan gives bitwise-
   identical outputs from replay to replay on the same GPU and driver: no atomics in reductions,
   one fixed cuBLASLt algorithm per GEMM chosen at plan time.

   THREAD SAFETY
   =============
   One context may be shared by any number of threads. The rule, function by function:
   - aicf_result_str, aicf_dtype_name, aicf_dtype_size, aicf_policy_format, aicf_policy_parse:
     stateless, callable from any thread at any time.
   - aicf_context_create: any thread. aicf_context_destroy: only once nothing else of that
     context is in use on any thread (destroy execs, then plans, then graphs, then the context).
   - aicf_last_error(ctx): the message of the calling thread's last failed call on ctx ("" if it
     has none), kept per thread (four contexts per thread; a fifth reuses the oldest slot): a
     failure on another thread never changes or garbles it. Built by a compiler without
     thread-local storage (not GCC, Clang, MSVC, C11 or C++11), the message is one per context.
   - Graph building (aicf_graph_*), aicf_graph_load_onnx*, aicf_tensor_*_pb*: any thread; a
     graph must not be changed by two threads at once, nor read while another changes it.
     Several threads may read one graph at once (plan it, query it).
   - aicf_plan_create, aicf_plan_load*: any thread, also several at once on one graph.
     On CUDA one may start a helper thread of its own for cuBLASLt's setup (AICF_NO_THREADS),
     always joined before it returns: no thread of aicf outlives a call.
     A plan is read-only once made: its queries, aicf_plan_format, aicf_plan_save*, explain
     and DOT, and aicf_exec_create may be called from several threads at once on one plan.
   - An exec belongs to one thread at a time: aicf_exec_* on one exec must not overlap; distinct
     execs (of one plan or of several) run concurrently, each on its own stream. A stream given
     in aicf_exec_desc must belong to the device's primary context.
   - aicf_context_device_info and the CUDA driver's loading: any thread; the driver is loaded
     once per context however many threads ask first.
   - The context's allocator (aicf_context_desc.allocator) is called from every thread that
     uses the context, possibly at the same time: it must be thread-safe.

   PROFILING
   =========
   aicf_plan_num_steps / aicf_plan_step_info give each step's op, node, kernel and reason.
   An exec created with AICF_EXEC_PROFILE carries a CUDA event-record node before the first
   step and after every step; aicf_exec_profile(ex, warmup, iters, step_us, n) replays it and
   writes each step's median time in microseconds (CPU plans: wall clock per step). Event
   nodes cost a little per step, so time without AICF_EXEC_PROFILE (aicf_exec_benchmark) for
   the total. AICF_EXEC_DEVICE_IO leaves inputs and outputs in device memory and skips the
   host staging copies, as a caller that produces them on the GPU would.
   `build/aicf profile MODEL.onnx [--top N]` prints the table.
   Programmatic dependent launch (sm_90+, CUDA 12.3+ driver) is a plan decision: every kernel
   launch right after another kernel launch is joined to it by a programmatic edge: it is
   launched as its predecessor's blocks exit (a GEMV lets its successor launch as soon as its
   own blocks have started, so that a GEMV with constant weights prefetches them while its
   predecessor runs), and waits for the predecessor before touching memory (explain: "launch:
   programmatic"; plan files: `pdl=1`; policy `no_pdl = 1` turns it off). Same results; the
   reference MLP at batch 1 took 10.9-11.0 us against 14.1-14.3 without it on an H100, ResNet-18
   at batch 1 179 against 190 on an H200 (docs/benchmarks.md). cuBLASLt's launches (child
   graphs) take full edges. AICF_EXEC_PDL makes every kernel-to-kernel edge programmatic even
   under no_pdl. aicf_exec_stats.programmatic_edges counts the edges the exec made.
   Batch-1 Linear layers (Gemm, transB, M <= 8) run on generated GEMV kernels; the float32 <->
   float16 boundary Casts beside one are done by the GEMV itself (no launch of their own). The
   policy key `persistent = 1` joins a chain of such layers into one launch (aicf_gemvp_*: the
   weights staged in shared memory at launch, the layers handed off through tagged words): the
   same results to float32 rounding; on an H100 the reference MLP at batch 1 takes about what the
   separate launches take (13.3-13.5 vs 13.8-14.0 us) and batch 8 twice as long
   (docs/benchmarks.md), hence opt-in.
   A Gemm or MatMul on cuBLASLt takes its bias, a residual (beta C) and a ReLU or a Gelu into
   cuBLASLt's epilogue. cuBLASLt's GELU is the tanh form, so a Gelu with approximate = "tanh"
   goes in always, one of the erf form (torch.nn.GELU(), the exported five-op GELU) only under
   the policy key `gelu_tanh = 1`: the two forms differ by at most 4.7e-4; the reference encoder
   at batch 32 took 356 us with it against 380 without on an H200 (docs/benchmarks.md, session 32).

   KERNEL CHOICES: PINS AND AUTOTUNING
   Each Conv, Gemm and MatMul step has a kernel family (aicf_kernel_choice): the rules of the
   policy (conv_algo, matmul_algo, the cost model) pick it, a pin fixes it for one node:
       strcpy(desc.policy.pins[0].node, "conv1");
       desc.policy.pins[0].kernel = AICF_CHOICE_DIRECT;         (policy text: pin = direct conv1)
   and policy.autotune = 1 times every unpinned step under each choice, and the rules' own
   lowering where it differs (choice RULE in the results), on the device at plan creation and
   keeps the fastest (plan creation then takes about a second for a ResNet-50).
   aicf_plan_explain lists each tuned step's candidates with their times (aicf_plan_step_info
   gives them as data: choice, variant, pinned, tuned_us[]); a saved plan keeps the decisions
   and the times, and loads without timing again.

   CONFIGURATION MACROS
   ====================
   AICF_IMPLEMENTATION   compile the implementation in this translation unit
   AICF_STATIC           make the public functions static
   AICF_API              override the linkage of the public functions
   AICF_ASSERT(c)        override assert (internal invariants only; input is never asserted)
   AICF_NO_KERNEL_TABLE  build without the generated kernel table (CUDA plans can then use
                         only cuBLASLt; anything else is AICF_ERROR_NO_KERNEL)
   AICF_KERNEL_TABLE_FILE "path"  include this kernel table instead of kernels_gen/aicf_kernels.h
   AICF_NO_CUDA          compile the CUDA backend out: no dlopen, every CUDA entry point
                         returns AICF_ERROR_NO_DEVICE
   AICF_NO_THREADS       never start a thread (the one aicf starts otherwise: on CUDA, a plan
                         with at least 16 MiB of weights to fold, asking cuBLASLt for the first
                         time on the context, runs cuBLASLt's one-time setup, ~0.1 s of host
                         time, on a helper thread while it folds, and joins it before
                         aicf_plan_create returns; AICF_CONTEXT_NO_THREADS turns it off per
                         context)
   Memory goes through aicf_context_desc.allocator (default malloc/realloc/free).

   KERNELS
   =======
   Kernels are generated at build time (codegen/ renders the templates/ directory with Jinja2 and
   compiles them with NVRTC into cubins for sm_80, sm_86, sm_89, sm_90 plus PTX for the newest;
   one module, the Hopper GEMMs (wgmma + TMA: those of plans without cuBLASLt, and the
   warp-specialised one that takes a large GEMM with an erf-form Gelu inside), is an sm_90a cubin
   for H100/H200 alone).
   At run time aicf picks the cubin of the device's SM, else the same major with a lower minor,
   else the PTX, else fails with AICF_ERROR_NO_KERNEL naming the device's compute capability and
   the embedded targets. `make kernels SM="80 90"` regenerates the table for other targets.

   aicf DOES NOT
   =============
   - compile anything at run time (no NVRTC in your process);
   - allocate, branch on shapes or query heuristics on the replay path;
   - keep process-global state (everything hangs off an aicf_context);
   - train, or run ops outside its op list (AICF__OPS): unsupported ops are reported at load
     time with the node, op type and reason.

   LICENSE: MIT (see the repository).
*/
