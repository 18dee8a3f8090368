/* CPU tests of the CUDA backend infrastructure (src/80_cuda.c), no GPU needed:
     - the absent-driver path and the other "no device" reasons (exact code and message);
     - the kernel image choice rules on synthetic lists (pure function);
     - the re-declared driver / cuBLASLt types, constants and ABI versions against the real
       cuda.h, cudaTypedefs.h and cublasLt.h when /usr/local/cuda/include is present (compile-time
       checks; reported as skipped, loudly, when it is not);
     - with tests/fake_libcuda.c (build/fakecuda/libcuda.so.1): initialisation, device info, the
       whole exec path (weights upload incl. float16 conversion, pinned staging, one graph of
       copy-in -> kernel -> copy -> copy-out, launch, outputs checked against a host reference),
       device I/O mode, module image choice and fallback, and fault injection into every driver
       call of exec creation: the result code, a message naming the call, no leaked driver
       objects, a balanced context stack, and a context that still works afterwards.
   Fresh random data every run (the seed is printed; AICF_SEED=N repeats a run).
   Usage: build/test_cuda_fake [path to the fake libcuda] (default build/fakecuda/libcuda.so.1,
   or $AICF_FAKE_CUDA). Ends with "N passed, N failed, N skipped". */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#undef AICF_KERNEL_TABLE_FILE /* this test brings its own table */
#define AICF_KERNEL_TABLE_FILE "tests/cuda_fake_table.h"
#include "../aicf.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(AICF_TEST_NO_CUDA_OPS) /* building before src/81_cuda_ops.c exists */
aicf_result aicf__cuda_select_step(aicf_plan* p, int si) {
    return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "step %d: no op lowering in this build", si);
}
aicf_result aicf__cuda_emit_step(aicf__cuda_emitter* em, aicf_plan* p, int si) {
    (void)em;
    return aicf__err(p->ctx, AICF_ERROR_UNSUPPORTED, "step %d: no op lowering in this build", si);
}
#endif

/* ---- compile-time checks of the re-declared types against the real headers ----
   Needs cuda.h, cudaTypedefs.h and cublasLt.h on the include path (-I$CUDA_HOME/include);
   reported as skipped, loudly, when they are not. */
#if defined(__has_include)
#  if __has_include(<cuda.h>) && __has_include(<cublasLt.h>) && __has_include(<cudaTypedefs.h>)
#    define TEST_HAVE_CUDA_HEADERS 1
#  endif
#endif

#if defined(TEST_HAVE_CUDA_HEADERS)
#  include <cuda.h>
#  include <cudaTypedefs.h>
#  include <cublasLt.h>
#  include <stddef.h>
#  define SA(name, cond) typedef char sa_##name[(cond) ? 1 : -1]
#  define SA_OFF(T, U, f) SA(off_##T##_##f, offsetof(T, f) == offsetof(U, f))
/* scalar types */
SA(sz_result, sizeof(aicf__CUresult) == sizeof(CUresult));
SA(sz_device, sizeof(aicf__CUdevice) == sizeof(CUdevice));
SA(sz_deviceptr, sizeof(aicf__CUdeviceptr) == sizeof(CUdeviceptr) && sizeof(aicf__CUdeviceptr) == 8);
SA(sz_jit, sizeof(aicf__CUjit_option) == sizeof(CUjit_option));
SA(sz_attr, sizeof(aicf__CUdevice_attribute) == sizeof(CUdevice_attribute));
SA(sz_mode, sizeof(aicf__CUstreamCaptureMode) == sizeof(CUstreamCaptureMode));
SA(sz_ntype, sizeof(aicf__CUgraphNodeType) == sizeof(CUgraphNodeType));
SA(sz_memtype, sizeof(aicf__CUmemorytype) == sizeof(CUmemorytype));
SA(sz_query, sizeof(aicf__CUdriverProcAddressQueryResult) == sizeof(CUdriverProcAddressQueryResult));
/* CUDA_KERNEL_NODE_PARAMS_v1 */
SA(sz_kparams, sizeof(aicf__CUDA_KERNEL_NODE_PARAMS) == sizeof(CUDA_KERNEL_NODE_PARAMS_v1));
typedef aicf__CUDA_KERNEL_NODE_PARAMS KP;
typedef CUDA_KERNEL_NODE_PARAMS_v1 KR;
SA_OFF(KP, KR, func); SA_OFF(KP, KR, gridDimX); SA_OFF(KP, KR, gridDimY); SA_OFF(KP, KR, gridDimZ);
SA_OFF(KP, KR, blockDimX); SA_OFF(KP, KR, blockDimY); SA_OFF(KP, KR, blockDimZ);
SA_OFF(KP, KR, sharedMemBytes); SA_OFF(KP, KR, kernelParams); SA_OFF(KP, KR, extra);
/* CUDA_MEMCPY3D_v2 */
SA(sz_memcpy3d, sizeof(aicf__CUDA_MEMCPY3D) == sizeof(CUDA_MEMCPY3D_v2));
typedef aicf__CUDA_MEMCPY3D MP;
typedef CUDA_MEMCPY3D_v2 MR;
SA_OFF(MP, MR, srcXInBytes); SA_OFF(MP, MR, srcY); SA_OFF(MP, MR, srcZ); SA_OFF(MP, MR, srcLOD);
SA_OFF(MP, MR, srcMemoryType); SA_OFF(MP, MR, srcHost); SA_OFF(MP, MR, srcDevice); SA_OFF(MP, MR, srcArray);
SA_OFF(MP, MR, reserved0); SA_OFF(MP, MR, srcPitch); SA_OFF(MP, MR, srcHeight);
SA_OFF(MP, MR, dstXInBytes); SA_OFF(MP, MR, dstY); SA_OFF(MP, MR, dstZ); SA_OFF(MP, MR, dstLOD);
SA_OFF(MP, MR, dstMemoryType); SA_OFF(MP, MR, dstHost); SA_OFF(MP, MR, dstDevice); SA_OFF(MP, MR, dstArray);
SA_OFF(MP, MR, reserved1); SA_OFF(MP, MR, dstPitch); SA_OFF(MP, MR, dstHeight);
SA_OFF(MP, MR, WidthInBytes); SA_OFF(MP, MR, Height); SA_OFF(MP, MR, Depth);
/* CUlaunchConfig (cuOccupancyMaxActiveClusters) */
SA(sz_lconfig, sizeof(aicf__CUlaunchConfig) == sizeof(CUlaunchConfig));
typedef aicf__CUlaunchConfig LP;
typedef CUlaunchConfig LR;
SA_OFF(LP, LR, gridDimX); SA_OFF(LP, LR, gridDimY); SA_OFF(LP, LR, gridDimZ); SA_OFF(LP, LR, blockDimX);
SA_OFF(LP, LR, blockDimY); SA_OFF(LP, LR, blockDimZ); SA_OFF(LP, LR, sharedMemBytes); SA_OFF(LP, LR, hStream);
SA_OFF(LP, LR, attrs); SA_OFF(LP, LR, numAttrs);
SA(pfn_occ, sizeof(aicf__PFN_cuOccupancyMaxActiveClusters_v11070) == sizeof(PFN_cuOccupancyMaxActiveClusters_v11070));
/* driver constants */
SA(c_success, AICF__CUDA_SUCCESS == CUDA_SUCCESS);
SA(c_inval, AICF__CUDA_ERROR_INVALID_VALUE == CUDA_ERROR_INVALID_VALUE);
SA(c_oom, AICF__CUDA_ERROR_OUT_OF_MEMORY == CUDA_ERROR_OUT_OF_MEMORY);
SA(c_notinit, AICF__CUDA_ERROR_NOT_INITIALIZED == CUDA_ERROR_NOT_INITIALIZED);
SA(c_stub, AICF__CUDA_ERROR_STUB_LIBRARY == CUDA_ERROR_STUB_LIBRARY);
SA(c_nodev, AICF__CUDA_ERROR_NO_DEVICE == CUDA_ERROR_NO_DEVICE);
SA(c_invdev, AICF__CUDA_ERROR_INVALID_DEVICE == CUDA_ERROR_INVALID_DEVICE);
SA(c_invimg, AICF__CUDA_ERROR_INVALID_IMAGE == CUDA_ERROR_INVALID_IMAGE);
SA(c_nobin, AICF__CUDA_ERROR_NO_BINARY_FOR_GPU == CUDA_ERROR_NO_BINARY_FOR_GPU);
SA(c_invptx, AICF__CUDA_ERROR_INVALID_PTX == CUDA_ERROR_INVALID_PTX);
SA(c_ptxver, AICF__CUDA_ERROR_UNSUPPORTED_PTX_VERSION == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
SA(c_notfound, AICF__CUDA_ERROR_NOT_FOUND == CUDA_ERROR_NOT_FOUND);
SA(c_smcount, AICF__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SA(c_ccmaj, AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SA(c_ccmin, AICF__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SA(c_smem, AICF__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SA(c_fsmem, AICF__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SA(c_nonblock, AICF__CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING);
SA(c_evdefault, AICF__CU_EVENT_DEFAULT == CU_EVENT_DEFAULT);
SA(c_relaxed, AICF__CU_STREAM_CAPTURE_MODE_RELAXED == CU_STREAM_CAPTURE_MODE_RELAXED);
SA(c_portable, AICF__CU_MEMHOSTALLOC_PORTABLE == CU_MEMHOSTALLOC_PORTABLE);
SA(c_mhost, AICF__CU_MEMORYTYPE_HOST == CU_MEMORYTYPE_HOST);
SA(c_mdev, AICF__CU_MEMORYTYPE_DEVICE == CU_MEMORYTYPE_DEVICE);
SA(c_nkernel, AICF__CU_GRAPH_NODE_TYPE_KERNEL == CU_GRAPH_NODE_TYPE_KERNEL);
SA(c_gpadef, AICF__CU_GET_PROC_ADDRESS_DEFAULT == CU_GET_PROC_ADDRESS_DEFAULT);
SA(c_jinfo, AICF__CU_JIT_INFO_LOG_BUFFER == CU_JIT_INFO_LOG_BUFFER);
SA(c_jinfosz, AICF__CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SA(c_jerr, AICF__CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER);
SA(c_jerrsz, AICF__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
/* every (name, version) of the entry point table is a real ABI version: cudaTypedefs.h has a
   PFN_<name>_v<version> typedef for it (the build fails here otherwise) */
#  define CHECK_PFN(name, version, params) typedef PFN_##name##_v##version chk_pfn_##name;
AICF__CUDA_API(CHECK_PFN)
#  undef CHECK_PFN
/* cuTensorMapEncodeTiled (ABI 12000, resolved optionally): the constants aicf passes, the
   sizes of the types it passes as int / uint32_t / uint64_t, the map's 128 bytes */
typedef PFN_cuTensorMapEncodeTiled_v12000 chk_pfn_tmap;
SA(tm_f16, AICF__CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
SA(tm_l2, AICF__CU_TENSOR_MAP_L2_PROMOTION_L2_128B == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
SA(tm_sw, CU_TENSOR_MAP_SWIZZLE_32B == 1 && CU_TENSOR_MAP_SWIZZLE_64B == 2 && CU_TENSOR_MAP_SWIZZLE_128B == 3 &&
              CU_TENSOR_MAP_INTERLEAVE_NONE == 0 && CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE == 0);
SA(tm_enum, sizeof(CUtensorMapDataType) == sizeof(int) && sizeof(CUtensorMapSwizzle) == sizeof(int) &&
                sizeof(cuuint32_t) == sizeof(uint32_t) && sizeof(cuuint64_t) == sizeof(uint64_t));
SA(tm_size, sizeof(CUtensorMap) == 128);
/* cuBLASLt */
SA(lt_algo, sizeof(aicf__cublasLtMatmulAlgo_t) == sizeof(cublasLtMatmulAlgo_t));
SA(lt_heur, sizeof(aicf__cublasLtMatmulHeuristicResult_t) == sizeof(cublasLtMatmulHeuristicResult_t));
typedef aicf__cublasLtMatmulHeuristicResult_t HP;
typedef cublasLtMatmulHeuristicResult_t HR;
SA_OFF(HP, HR, algo); SA_OFF(HP, HR, workspaceSize); SA_OFF(HP, HR, state); SA_OFF(HP, HR, wavesCount);
SA_OFF(HP, HR, reserved);
SA(lt_status, sizeof(aicf__cublasStatus_t) == sizeof(cublasStatus_t));
SA(lt_ok, AICF__CUBLAS_STATUS_SUCCESS == CUBLAS_STATUS_SUCCESS);
SA(lt_r32f, AICF__CUDA_R_32F == CUDA_R_32F);
SA(lt_r16f, AICF__CUDA_R_16F == CUDA_R_16F);
SA(lt_c32f, AICF__CUBLAS_COMPUTE_32F == CUBLAS_COMPUTE_32F);
SA(lt_ctf32, AICF__CUBLAS_COMPUTE_32F_FAST_TF32 == CUBLAS_COMPUTE_32F_FAST_TF32);
SA(lt_opn, AICF__CUBLAS_OP_N == CUBLAS_OP_N);
SA(lt_opt, AICF__CUBLAS_OP_T == CUBLAS_OP_T);
SA(lt_bcount, AICF__CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
SA(lt_bstride, AICF__CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
SA(lt_ta, AICF__CUBLASLT_MATMUL_DESC_TRANSA == CUBLASLT_MATMUL_DESC_TRANSA);
SA(lt_tb, AICF__CUBLASLT_MATMUL_DESC_TRANSB == CUBLASLT_MATMUL_DESC_TRANSB);
SA(lt_epi, AICF__CUBLASLT_MATMUL_DESC_EPILOGUE == CUBLASLT_MATMUL_DESC_EPILOGUE);
SA(lt_bias, AICF__CUBLASLT_MATMUL_DESC_BIAS_POINTER == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
SA(lt_biast, AICF__CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
SA(lt_edef, AICF__CUBLASLT_EPILOGUE_DEFAULT == CUBLASLT_EPILOGUE_DEFAULT);
SA(lt_erelu, AICF__CUBLASLT_EPILOGUE_RELU == CUBLASLT_EPILOGUE_RELU);
SA(lt_ebias, AICF__CUBLASLT_EPILOGUE_BIAS == CUBLASLT_EPILOGUE_BIAS);
SA(lt_erb, AICF__CUBLASLT_EPILOGUE_RELU_BIAS == CUBLASLT_EPILOGUE_RELU_BIAS);
SA(lt_egelu, AICF__CUBLASLT_EPILOGUE_GELU == CUBLASLT_EPILOGUE_GELU);
SA(lt_egb, AICF__CUBLASLT_EPILOGUE_GELU_BIAS == CUBLASLT_EPILOGUE_GELU_BIAS);
SA(lt_ws, AICF__CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
SA(lt_aa, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
SA(lt_ab, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
SA(lt_ac, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
SA(lt_ad, AICF__CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
#endif /* TEST_HAVE_CUDA_HEADERS */

/* ---- harness ---- */
static int g_pass, g_fail, g_skip;
static uint64_t g_rng;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            g_pass++;                                                                              \
        } else {                                                                                   \
            g_fail++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

#define CHECK_ERR(ctx, r, code, needle)                                                            \
    CHECK((r) == (code) && strstr(aicf_last_error(ctx), (needle)) != NULL,                         \
          "expected %s containing \"%s\", got %s: \"%s\"", aicf_result_str(code), (needle),        \
          aicf_result_str(r), aicf_last_error(ctx))

static float frand(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (float)((double)((g_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* ---- the fake driver's control functions ---- */
static struct {
    void* h;
    void (*reset)(void);
    void (*fail)(const char*, int, int);
    void (*missing)(const char*);
    void (*set_device)(int, int, int);
    long (*live)(void);
    int (*ctx_depth)(void);
    long (*calls)(const char*);
    const void* (*last_module)(void);
    long (*kernels_run)(void);
    long (*programmatic_edges)(void);
    int (*programmatic_port)(void);
} FK;
static const char* g_fake_path;

static int fake_load(const char* path) {
    void* s;
    FK.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!FK.h) return 0;
#define FK_SYM(field, name)                                                                        \
    s = dlsym(FK.h, name);                                                                         \
    if (!s) return 0;                                                                              \
    memcpy(&FK.field, &s, sizeof s);
    FK_SYM(reset, "fakecuda_reset")
    FK_SYM(fail, "fakecuda_fail")
    FK_SYM(missing, "fakecuda_missing")
    FK_SYM(set_device, "fakecuda_set_device")
    FK_SYM(live, "fakecuda_live")
    FK_SYM(ctx_depth, "fakecuda_ctx_depth")
    FK_SYM(calls, "fakecuda_calls")
    FK_SYM(last_module, "fakecuda_last_module")
    FK_SYM(kernels_run, "fakecuda_kernels_run")
    FK_SYM(programmatic_edges, "fakecuda_programmatic_edges")
    FK_SYM(programmatic_port, "fakecuda_programmatic_port")
#undef FK_SYM
    return 1;
}

static aicf_context* fake_ctx(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = g_fake_path;
    cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
    if (aicf_context_create(&cd, &ctx) != AICF_SUCCESS) return NULL;
    return ctx;
}

/* ---- image choice rules ---- */
static void test_image_choice(void) {
    static const unsigned char d[] = "x";
    aicf__kt_image im[10];
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_result r;
    char buf[256];
    int n = 0;
    memset(im, 0, sizeof im);
#define IMG(mod, sm_, ptx)                                                                         \
    im[n].module = mod;                                                                            \
    im[n].sm = sm_;                                                                                \
    im[n].is_ptx = ptx;                                                                            \
    im[n].data = d;                                                                                \
    im[n].size = 2;                                                                                \
    n++;
    IMG(0, 80, 0) IMG(0, 86, 0) IMG(0, 89, 0) IMG(0, 90, 0) IMG(0, 90, 1) IMG(1, 80, 0) IMG(1, 75, 1)
    /* exact cubin */
    CHECK(aicf__cuda_choose_image(8, 6, im, n, 0, 1) == 1, "cc 8.6 -> sm_86 cubin");
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 0, 1) == 3, "cc 9.0 -> sm_90 cubin, not the PTX");
    /* same major, highest lower minor */
    CHECK(aicf__cuda_choose_image(8, 7, im, n, 0, 1) == 1, "cc 8.7 -> sm_86 (highest lower minor)");
    CHECK(aicf__cuda_choose_image(8, 9, im, n, 0, 1) == 2, "cc 8.9 -> sm_89 exact");
    CHECK(aicf__cuda_choose_image(9, 1, im, n, 0, 1) == 3, "cc 9.1 -> sm_90 cubin");
    /* no cubin of the major: PTX of the highest compute_XY <= cc */
    CHECK(aicf__cuda_choose_image(10, 0, im, n, 0, 1) == 4, "cc 10.0 -> compute_90 PTX");
    CHECK(aicf__cuda_choose_image(12, 0, im, n, 0, 1) == 4, "cc 12.0 -> compute_90 PTX");
    /* PTX for compute_90 does not JIT below 9.0, and cubins of a higher major never run */
    CHECK(aicf__cuda_choose_image(7, 5, im, n, 0, 1) == -1, "cc 7.5 -> nothing for module 0");
    CHECK(aicf__cuda_choose_image(8, 0, im, n, 0, 0) == -1, "cc 8.0 without cubins -> no PTX <= 8.0 for module 0");
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 0, 0) == 4, "cc 9.0 without cubins -> PTX");
    /* module 1: sm_80 cubin, compute_75 PTX */
    CHECK(aicf__cuda_choose_image(7, 5, im, n, 1, 1) == 6, "module 1 on cc 7.5 -> compute_75 PTX");
    CHECK(aicf__cuda_choose_image(8, 6, im, n, 1, 1) == 5, "module 1 on cc 8.6 -> sm_80 cubin");
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 1, 1) == 6, "module 1 on cc 9.0 -> compute_75 PTX (no sm_9x cubin)");
    CHECK(aicf__cuda_choose_image(6, 1, im, n, 1, 1) == -1, "module 1 on cc 6.1 -> nothing");
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 2, 1) == -1, "module without images -> nothing");
    /* module 3: an architecture-specific sm_90a cubin (is_ptx 2) loads on cc 9.0 alone */
    IMG(3, 90, 2)
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 3, 1) == 7, "module 3 (sm_90a) on cc 9.0 -> its cubin");
    CHECK(aicf__cuda_choose_image(9, 1, im, n, 3, 1) == -1, "module 3 (sm_90a) on cc 9.1 -> nothing (not the lower-minor rule)");
    CHECK(aicf__cuda_choose_image(10, 0, im, n, 3, 1) == -1, "module 3 (sm_90a) on cc 10.0 -> nothing (not a PTX)");
    CHECK(aicf__cuda_choose_image(9, 0, im, n, 3, 0) == -1, "module 3 (sm_90a) on cc 9.0 without cubins -> nothing");
    aicf__cuda_targets_str(im, n, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "sm_90a") == 0, "targets string of an sm_90a module: \"%s\"", buf);
    n--;
    /* the message */
    aicf__cuda_targets_str(im, n, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "sm_80 sm_86 sm_89 sm_90 compute_90") == 0, "targets string: \"%s\"", buf);
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    aicf_context_create(&cd, &ctx);
    r = aicf__cuda_no_image(ctx, 7, 5, im, n, 0, "elementwise_f32");
    CHECK_ERR(ctx, r, AICF_ERROR_NO_KERNEL,
              "module 'elementwise_f32': device compute capability 7.5 has no kernel image: embedded targets sm_80 sm_86 sm_89 sm_90 compute_90");
    r = aicf__cuda_no_image(ctx, 9, 0, im, n, 3, "m3");
    CHECK_ERR(ctx, r, AICF_ERROR_NO_KERNEL, "embedded targets (none)");
    /* the kernel table lookup */
    CHECK(aicf__cuda_kernel_find("aicf_test_axpy") == 0, "kernel_find");
    CHECK(aicf__cuda_kernel_find("aicf_test_bad") == 1, "kernel_find 2");
    CHECK(aicf__cuda_kernel_find("nope") == -1 && aicf__cuda_kernel_find(NULL) == -1, "kernel_find absent");
    /* AICF_CONTEXT_NO_CUDA */
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "AICF_CONTEXT_NO_CUDA");
    aicf_context_destroy(ctx);
#undef IMG
}

/* ---- no driver ---- */
static void test_absent_driver(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_device_info info;
    aicf_result r;
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = "/nonexistent/libcuda.so.1";
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context");
    r = aicf_context_device_info(ctx, &info);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "/nonexistent/libcuda.so.1 not found (dlopen: ");
    CHECK(info.cuda_available == 0, "cuda_available 0");
    /* the second attempt gives the same code and reason without retrying */
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "/nonexistent/libcuda.so.1 not found");
    aicf_context_destroy(ctx);
    /* a library that is not a driver */
    memset(&cd, 0, sizeof cd);
    cd.cuda_driver_path = "libm.so.6";
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context");
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "exports neither cuGetProcAddress_v2 nor cuGetProcAddress");
    aicf_context_destroy(ctx);
}

/* ---- initialisation through the fake driver ---- */
static void test_fake_init(void) {
    aicf_context* ctx;
    aicf_device_info info;
    aicf_result r;
    long live0 = FK.live();

    FK.reset();
    FK.set_device(1, 9, 0);
    FK.fail("cuInit", 100, 0);
    ctx = fake_ctx();
    r = aicf_context_device_info(ctx, &info);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "no objects left after a failed init (%ld vs %ld)", FK.live(), live0);

    FK.reset();
    FK.missing("cuGraphInstantiateWithFlags");
    ctx = fake_ctx();
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "lacks cuGraphInstantiateWithFlags (ABI of CUDA 11.4");
    aicf_context_destroy(ctx);

    FK.reset();
    FK.set_device(0, 9, 0);
    ctx = fake_ctx();
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "no CUDA device (cuDeviceGetCount returned 0)");
    aicf_context_destroy(ctx);

    FK.reset();
    FK.set_device(2, 9, 0);
    {
        aicf_context_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.cuda_driver_path = g_fake_path;
        cd.cublaslt_path = "/nonexistent/libcublasLt.so.13";
        cd.device_ordinal = 3;
        aicf_context_create(&cd, &ctx);
    }
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "device_ordinal 3 out of range: 2 CUDA device(s)");
    aicf_context_destroy(ctx);

    FK.reset();
    FK.fail("cuDevicePrimaryCtxRetain", 999, 0);
    ctx = fake_ctx();
    r = aicf__cuda_init(ctx);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_DEVICE, "cuDevicePrimaryCtxRetain failed: CUDA_ERROR_UNKNOWN");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "no objects left (%ld vs %ld)", FK.live(), live0);

    /* success */
    FK.reset();
    FK.set_device(1, 8, 9);
    ctx = fake_ctx();
    r = aicf_context_device_info(ctx, &info);
    CHECK(r == AICF_SUCCESS, "device info: %s", aicf_last_error(ctx));
    CHECK(info.cuda_available == 1 && info.cc_major == 8 && info.cc_minor == 9, "cc %d.%d", info.cc_major, info.cc_minor);
    CHECK(strcmp(info.name, "Fake GPU 0 (cc 8.9)") == 0, "name \"%s\"", info.name);
    CHECK(info.total_memory == ((uint64_t)80 << 30), "total memory %llu", (unsigned long long)info.total_memory);
    CHECK(info.driver_version == 13000, "driver version %d", info.driver_version);
    CHECK(info.cublaslt_available == 0 && info.cublaslt_version == 0, "cuBLASLt absent");
    CHECK(FK.live() == live0 + 1, "the primary context is retained once");
    CHECK(FK.ctx_depth() == 0, "context stack balanced after init");
    CHECK(ctx->cuda && strstr(ctx->cuda->lt_error, "/nonexistent/libcublasLt.so.13") != NULL, "lt_error \"%s\"",
          ctx->cuda ? ctx->cuda->lt_error : "");
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "primary context released at context destroy");
}

/* ---- a hand-made plan: z = copy(alpha * x + w), x input, w constant, y intermediate ---- */
enum { TX = 0, TW = 1, TY = 2, TZ = 3 };
typedef struct tplan {
    aicf_graph* g;
    aicf_plan p;
    aicf__loc loc[8];
    int in[1], out[1];
    aicf__step steps[3];
    int64_t n;
    float alpha;
    float* wdata;
    int mode; /* what test_emit emits: 0 kernel + copy, 1 nothing, 2 the bad kernel, 3 a matmul,
                 4 bad launch dims, 5 oversized args, 6 null copy, 7 bad kernel index,
                 8 kernel into the step's arena scratch (aicf__cuda_scratch_ptr) + copy from it,
                 9 two kernels + copy */
    int pdl;  /* the kernels' launches are programmatic by the plan (aicf__cuo_op.pdl) */
} tplan;

static size_t al256(size_t b) { return (b + 255u) & ~(size_t)255u; }

static int tplan_make(aicf_context* ctx, tplan* tp, int64_t n, int f16_weights) {
    aicf_tensor_desc d;
    int64_t dims[1];
    int64_t i;
    size_t fb;
    int t;
    memset(tp, 0, sizeof *tp);
    tp->n = n;
    tp->alpha = 0.5f + (frand() + 1.0f);
    dims[0] = n;
    tp->wdata = (float*)malloc((size_t)n * 4);
    for (i = 0; i < n; ++i) tp->wdata[i] = frand() * 3.0f;
    if (aicf_graph_create(ctx, &tp->g) != AICF_SUCCESS) return 0;
    memset(&d, 0, sizeof d);
    d.name = "x";
    d.dtype = AICF_DTYPE_FLOAT32;
    d.rank = 1;
    d.dims = dims;
    if (aicf_graph_add_input(tp->g, &d) != AICF_SUCCESS) return 0;
    d.name = "w";
    d.data = tp->wdata;
    d.data_bytes = (size_t)n * 4;
    d.borrow = 1;
    if (aicf_graph_add_constant(tp->g, &d) != AICF_SUCCESS) return 0;
    if (aicf__graph_new_tensor(tp->g, "y") != TY || aicf__graph_new_tensor(tp->g, "z") != TZ) return 0;
    if (aicf__graph_find(tp->g, "x") != TX || aicf__graph_find(tp->g, "w") != TW) return 0;
    for (t = TY; t <= TZ; ++t) {
        tp->g->tensors[t].dtype = AICF_DTYPE_FLOAT32;
        tp->g->tensors[t].shape.rank = 1;
        tp->g->tensors[t].shape.d[0] = n;
        tp->g->tensors[t].shape_known = 1;
    }
    fb = (size_t)n * 4;
    for (t = 0; t < 4; ++t) {
        tp->loc[t].space = AICF__SPACE_ARENA;
        tp->loc[t].bytes = fb;
        tp->loc[t].sdtype = AICF_DTYPE_FLOAT32;
        tp->loc[t].alias_of = -1;
    }
    tp->loc[TX].offset = 0;
    tp->loc[TY].offset = al256(fb);
    tp->loc[TZ].offset = 2 * al256(fb);
    tp->loc[TW].space = AICF__SPACE_WEIGHTS;
    tp->loc[TW].offset = 0;
    if (f16_weights) {
        tp->loc[TW].sdtype = AICF_DTYPE_FLOAT16;
        tp->loc[TW].bytes = (size_t)n * 2;
    }
    tp->p.ctx = ctx;
    tp->p.g = tp->g;
    tp->p.target = AICF_BACKEND_CUDA;
    tp->p.loc = tp->loc;
    tp->p.arena_bytes = 3 * al256(fb);
    tp->p.weights_bytes = tp->loc[TW].bytes;
    tp->in[0] = TX;
    tp->out[0] = TZ;
    tp->p.in_tensor = tp->p.in_boundary = tp->in;
    tp->p.out_tensor = tp->p.out_boundary = tp->out;
    tp->p.n_in = 1;
    tp->p.n_out = 1;
    tp->steps[0].kind = AICF__STEP_NODE;
    tp->steps[0].node = -1;
    tp->steps[0].kernel_index = -1;
    tp->steps[0].backend = tp; /* test_emit finds its parameters here */
    tp->p.steps = tp->steps;
    tp->p.n_steps = 1;
    return 1;
}

static void tplan_free(tplan* tp) {
    aicf_graph_destroy(tp->g);
    free(tp->wdata);
}

typedef struct axpy_args { /* templates/sample_axpy.cu.j2's aicf_sample_axpy_args */
    uint64_t x, y, out, n;
    float alpha;
    uint32_t pad0;
} axpy_args;

static aicf_result test_emit(aicf__cuda_emitter* em, aicf_plan* p, int si) {
    tplan* tp = (tplan*)p->steps[si].backend;
    axpy_args a;
    unsigned grid[3], block[3];
    int k = aicf__cuda_kernel_find(tp->mode == 2 ? "aicf_test_bad" : "aicf_test_axpy");
    aicf_result r;
    if (tp->mode == 1) return AICF_SUCCESS;
    memset(&a, 0, sizeof a);
    a.x = aicf__cuda_tensor_ptr(em, TX);
    a.y = aicf__cuda_tensor_ptr(em, TW);
    a.out = tp->mode == 8 ? aicf__cuda_scratch_ptr(em) : aicf__cuda_tensor_ptr(em, TY);
    a.n = (uint64_t)tp->n;
    a.alpha = tp->alpha;
    if (!a.x || !a.y || !a.out) return aicf__err(p->ctx, AICF_ERROR_STATE, "test_emit: null tensor address");
    grid[0] = (unsigned)((tp->n + 255) / 256);
    grid[1] = grid[2] = 1;
    block[0] = 256;
    block[1] = block[2] = 1;
    if (tp->mode == 3) {
        aicf__matmul_desc md;
        memset(&md, 0, sizeof md);
        md.M = md.N = md.K = 4;
        md.lda = md.ldb = md.ldc = 4;
        md.batch = 1;
        md.alpha = 1.0f;
        md.dtype = AICF_DTYPE_FLOAT32;
        md.a = a.x;
        md.b = a.y;
        md.d = a.out;
        return aicf__cuda_emit_matmul(em, &md, &md /* any non-NULL record: never read without cuBLASLt */);
    }
    if (tp->mode == 4) block[0] = 2048;
    if (tp->mode == 6) return aicf__cuda_emit_copy(em, 0, a.x, 16);
    if (tp->mode == 7) k = 57;
    r = aicf__cuda_emit_kernel(em, k, grid, block, 0, &a, tp->mode == 5 ? (size_t)8192 : sizeof a, tp->pdl);
    if (r != AICF_SUCCESS) return r;
    if (tp->mode == 9) { /* the same kernel again right after: a kernel -> kernel edge (the plan's pdl: programmatic) */
        r = aicf__cuda_emit_kernel(em, k, grid, block, 0, &a, sizeof a, tp->pdl);
        if (r != AICF_SUCCESS) return r;
    }
    return aicf__cuda_emit_copy(em, aicf__cuda_tensor_ptr(em, TZ), a.out, (size_t)tp->n * 4);
}

static void exec_init(aicf_exec* e, tplan* tp, uint32_t flags) {
    memset(e, 0, sizeof *e);
    e->ctx = tp->p.ctx;
    e->plan = &tp->p;
    e->desc.flags = flags;
}

/* Runs the exec once with fresh input and checks z == alpha * x + w (float32 arithmetic, same as
   the emulated kernel: exact). */
static void run_and_check(aicf_exec* e, tplan* tp, const char* what) {
    int64_t n = tp->n, i, bad = 0;
    float* x = (float*)malloc((size_t)n * 4);
    float* z = (float*)malloc((size_t)n * 4);
    aicf_result r;
    for (i = 0; i < n; ++i) x[i] = frand() * 10.0f;
    for (i = 0; i < n; ++i) z[i] = -12345.0f;
    r = aicf__cuda_exec_set_input(e, 0, x, (size_t)n * 4, 0);
    CHECK(r == AICF_SUCCESS, "%s: set_input: %s", what, aicf_last_error(e->ctx));
    r = aicf__cuda_exec_launch(e);
    CHECK(r == AICF_SUCCESS, "%s: launch: %s", what, aicf_last_error(e->ctx));
    r = aicf__cuda_exec_wait(e);
    CHECK(r == AICF_SUCCESS, "%s: wait: %s", what, aicf_last_error(e->ctx));
    r = aicf__cuda_exec_get_output(e, 0, z, (size_t)n * 4);
    CHECK(r == AICF_SUCCESS, "%s: get_output: %s", what, aicf_last_error(e->ctx));
    for (i = 0; i < n; ++i) {
        float ref = tp->alpha * x[i] + tp->wdata[i];
        if (!(z[i] == ref)) bad++;
    }
    CHECK(bad == 0, "%s: %lld of %lld outputs differ from alpha * x + w", what, (long long)bad, (long long)n);
    free(x);
    free(z);
}

static void test_fake_exec(void) {
    aicf_context* ctx;
    tplan tp;
    aicf_exec e;
    aicf_exec_stats st;
    aicf_result r;
    long live0 = FK.live(), live1;
    uint64_t ptr = 0;

    FK.reset();
    FK.set_device(1, 9, 0);
    ctx = fake_ctx();
    CHECK(aicf__cuda_init(ctx) == AICF_SUCCESS, "init: %s", aicf_last_error(ctx));
    live1 = FK.live();
    CHECK(tplan_make(ctx, &tp, 1000 + (int64_t)((frand() + 1.0f) * 500.0f), 0), "plan");

    /* the full path: copy-in -> kernel -> copy -> copy-out */
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "exec create: %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        const unsigned char* img = (const unsigned char*)FK.last_module();
        CHECK(img == aicf__fk_ptx90, "cc 9.0: the sm_90 cubin is refused (BADCUBIN), the compute_90 PTX loads");
        CHECK(aicf__cuda_exec_stats(&e, &st) == AICF_SUCCESS, "stats");
        CHECK(st.graph_nodes == 4 && st.kernel_nodes == 1, "graph nodes %d (4), kernel nodes %d (1)", st.graph_nodes, st.kernel_nodes);
        CHECK(st.device_bytes == tp.p.arena_bytes + tp.p.weights_bytes + 2 * al256((size_t)tp.n * 4),
              "device bytes %zu", st.device_bytes);
        CHECK(FK.calls("cuGraphInstantiateWithFlags") == 1, "instantiated once");
        CHECK(FK.calls("cuModuleLoadDataEx") == 2, "module load: cubin refused, then PTX (%ld calls)", FK.calls("cuModuleLoadDataEx"));
        CHECK(FK.ctx_depth() == 0, "context stack balanced");
        run_and_check(&e, &tp, "run 1");
        run_and_check(&e, &tp, "run 2 (replay)");
        CHECK(FK.calls("cuGraphLaunch") == 2 && FK.calls("cuGraphInstantiateWithFlags") == 1 && FK.calls("cuMemAlloc") == 2,
              "replays launch only: launches %ld, instantiations %ld, allocations %ld", FK.calls("cuGraphLaunch"),
              FK.calls("cuGraphInstantiateWithFlags"), FK.calls("cuMemAlloc"));
        /* device pointers */
        r = aicf__cuda_exec_device_ptr(&e, TZ, &ptr);
        CHECK(r == AICF_SUCCESS && ptr != 0, "device ptr of the output");
        r = aicf__cuda_exec_device_ptr(&e, 77, &ptr);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "tensor 77");
        /* bad sizes */
        {
            float tmp[4];
            r = aicf__cuda_exec_set_input(&e, 0, tmp, 16, 0);
            CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "input 0 'x' takes");
            r = aicf__cuda_exec_get_output(&e, 1, tmp, 16);
            CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "index 1 out of range (1 outputs)");
        }
        /* run-time driver failures */
        FK.fail("cuGraphLaunch", 700, 0);
        r = aicf__cuda_exec_launch(&e);
        CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuGraphLaunch failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
        FK.fail("cuStreamSynchronize", 700, 0);
        r = aicf__cuda_exec_wait(&e);
        CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
        FK.fail(NULL, 0, 0);
        CHECK(FK.ctx_depth() == 0, "context stack balanced after failures");
        aicf__cuda_exec_destroy(&e);
        CHECK(e.backend == NULL, "backend cleared");
    }
    CHECK(FK.live() == live1, "exec destroy frees every driver object (%ld vs %ld)", FK.live(), live1);
    tplan_free(&tp);

    /* device I/O: no copy nodes */
    CHECK(tplan_make(ctx, &tp, 777, 0), "plan");
    exec_init(&e, &tp, AICF_EXEC_DEVICE_IO);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "exec create (device io): %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        CHECK(aicf__cuda_exec_stats(&e, &st) == AICF_SUCCESS && st.graph_nodes == 2 && st.kernel_nodes == 1,
              "device io: graph nodes %d (2)", st.graph_nodes);
        CHECK(st.device_bytes == tp.p.arena_bytes + tp.p.weights_bytes, "device io: no staging");
        run_and_check(&e, &tp, "device io, host data");
        /* a device source: copy from the arena's own x (already set) through set_input(device) */
        {
            float* z = (float*)malloc((size_t)tp.n * 4);
            uint64_t xp = 0, zp = 0;
            int64_t i, bad = 0;
            float* src = (float*)malloc((size_t)tp.n * 4);
            for (i = 0; i < tp.n; ++i) src[i] = frand();
            /* on the fake, device memory is host memory: a host buffer stands in for a device one */
            r = aicf__cuda_exec_set_input(&e, 0, src, (size_t)tp.n * 4, 1);
            CHECK(r == AICF_SUCCESS && FK.calls("cuMemcpyDtoDAsync") == 1, "set_input device -> cuMemcpyDtoDAsync");
            aicf__cuda_exec_device_ptr(&e, TX, &xp);
            CHECK(xp && memcmp((void*)(uintptr_t)xp, src, (size_t)tp.n * 4) == 0, "device input landed in the arena");
            CHECK(aicf__cuda_exec_launch(&e) == AICF_SUCCESS, "launch");
            CHECK(aicf__cuda_exec_get_output(&e, 0, z, (size_t)tp.n * 4) == AICF_SUCCESS, "get_output waits by itself");
            aicf__cuda_exec_device_ptr(&e, TZ, &zp);
            for (i = 0; i < tp.n; ++i)
                if (!(z[i] == tp.alpha * src[i] + tp.wdata[i])) bad++;
            CHECK(bad == 0, "device io: %lld wrong outputs", (long long)bad);
            CHECK(zp && memcmp((void*)(uintptr_t)zp, z, (size_t)tp.n * 4) == 0, "output readable at its device address");
            free(z);
            free(src);
        }
        aicf__cuda_exec_destroy(&e);
    }
    CHECK(FK.live() == live1, "no leaks (device io)");
    tplan_free(&tp);

    /* staged mode with a device input: DtoH into the pinned staging buffer, then the graph */
    CHECK(tplan_make(ctx, &tp, 300, 0), "plan");
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    if (r == AICF_SUCCESS) {
        float* src = (float*)malloc((size_t)tp.n * 4);
        float* z = (float*)malloc((size_t)tp.n * 4);
        int64_t i, bad = 0;
        long dtoh0 = FK.calls("cuMemcpyDtoHAsync");
        for (i = 0; i < tp.n; ++i) src[i] = frand();
        r = aicf__cuda_exec_set_input(&e, 0, src, (size_t)tp.n * 4, 1);
        CHECK(r == AICF_SUCCESS && FK.calls("cuMemcpyDtoHAsync") == dtoh0 + 1, "staged device input -> cuMemcpyDtoHAsync");
        CHECK(aicf__cuda_exec_launch(&e) == AICF_SUCCESS && aicf__cuda_exec_wait(&e) == AICF_SUCCESS, "run");
        CHECK(aicf__cuda_exec_get_output(&e, 0, z, (size_t)tp.n * 4) == AICF_SUCCESS, "output");
        for (i = 0; i < tp.n; ++i)
            if (!(z[i] == tp.alpha * src[i] + tp.wdata[i])) bad++;
        CHECK(bad == 0, "staged device input: %lld wrong outputs", (long long)bad);
        free(src);
        free(z);
        aicf__cuda_exec_destroy(&e);
    } else {
        CHECK(0, "exec create: %s", aicf_last_error(ctx));
    }
    tplan_free(&tp);

    /* float16 weights: uploaded converted (round to nearest even) */
    CHECK(tplan_make(ctx, &tp, 513, 1), "plan");
    tp.mode = 1;
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "exec create (fp16 weights): %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        uint64_t wp = 0;
        int64_t i, bad = 0;
        aicf__cuda_exec_device_ptr(&e, TW, &wp);
        for (i = 0; i < tp.n && wp; ++i)
            if (((const uint16_t*)(uintptr_t)wp)[i] != aicf__f32_to_f16(tp.wdata[i])) bad++;
        CHECK(wp && bad == 0, "fp16 weights: %lld wrong", (long long)bad);
        CHECK(aicf__cuda_exec_stats(&e, &st) == AICF_SUCCESS && st.graph_nodes == 2 && st.kernel_nodes == 0, "copy-in, copy-out only");
        aicf__cuda_exec_destroy(&e);
    }
    /* a storage size that does not match the data */
    tp.loc[TW].bytes = (size_t)tp.n * 2 - 2;
    tp.p.weights_bytes = tp.loc[TW].bytes;
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "constant 1 'w'");
    CHECK(FK.live() == live1 && e.backend == NULL, "no leaks (bad weights)");
    tplan_free(&tp);

    /* emit-level errors, each leaves nothing behind */
    {
        static const struct {
            int mode;
            aicf_result code;
            const char* needle;
        } cases[] = {
            {2, AICF_ERROR_CUDA, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX"},
            {2, AICF_ERROR_CUDA, "JIT log: ptxas fatal   : fake JIT failure in line 3"},
            {3, AICF_ERROR_UNSUPPORTED, "matmul: cuBLASLt not found (tried /nonexistent/libcublasLt.so.13"},
            {4, AICF_ERROR_INVALID_ARGUMENT, "kernel 'aicf_test_axpy': invalid launch grid"},
            {5, AICF_ERROR_INVALID_ARGUMENT, "argument block of 8192 bytes (limit 4096)"},
            {6, AICF_ERROR_INVALID_ARGUMENT, "copy of 16 bytes with a null address"},
            {7, AICF_ERROR_INVALID_ARGUMENT, "kernel index 57 out of range (2 kernels in the table)"},
        };
        size_t c;
        for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            CHECK(tplan_make(ctx, &tp, 64, 0), "plan");
            tp.mode = cases[c].mode;
            exec_init(&e, &tp, 0);
            r = aicf__cuda_exec_create_with(&e, test_emit);
            CHECK_ERR(ctx, r, cases[c].code, cases[c].needle);
            CHECK(strstr(aicf_last_error(ctx), "step 0") != NULL || cases[c].mode == 2, "message names the step: %s", aicf_last_error(ctx));
            CHECK(FK.live() == live1 && FK.ctx_depth() == 0 && e.backend == NULL, "mode %d: nothing left behind", cases[c].mode);
            tplan_free(&tp);
        }
    }

    /* cuBLASLt absent: the plan-time query says so */
    {
        aicf__matmul_desc md;
        void* algo = (void*)&md;
        char reason[192];
        CHECK(tplan_make(ctx, &tp, 16, 0), "plan");
        memset(&md, 0, sizeof md);
        md.M = md.N = md.K = 8;
        md.lda = md.ldb = md.ldc = 8;
        md.batch = 1;
        md.dtype = AICF_DTYPE_FLOAT32;
        r = aicf__cuda_matmul_plan(&tp.p, 0, &md, 0, &algo, reason, sizeof reason);
        CHECK_ERR(ctx, r, AICF_ERROR_UNSUPPORTED, "cuBLASLt not found");
        CHECK(algo == NULL, "no algorithm record");
        tplan_free(&tp);
    }

    /* fault injection: every driver call of exec creation, each call number */
    {
        static const struct {
            const char* fn;
            int code, max_nth;
            aicf_result expect;
        } inj[] = {
            {"cuCtxPushCurrent", 201, 1, AICF_ERROR_CUDA},
            {"cuStreamCreate", 999, 1, AICF_ERROR_CUDA},
            {"cuMemAlloc", 2, 2, AICF_ERROR_DEVICE_OUT_OF_MEMORY},
            {"cuMemAlloc", 999, 2, AICF_ERROR_CUDA},
            {"cuMemcpyHtoD", 999, 1, AICF_ERROR_CUDA},
            {"cuMemHostAlloc", 2, 1, AICF_ERROR_OUT_OF_MEMORY},
            {"cuGraphCreate", 999, 1, AICF_ERROR_CUDA},
            {"cuGraphAddMemcpyNode", 999, 3, AICF_ERROR_CUDA},
            {"cuModuleLoadDataEx", 999, 1, AICF_ERROR_CUDA},
            {"cuModuleGetFunction", 500, 1, AICF_ERROR_CUDA},
            {"cuGraphAddKernelNode", 999, 1, AICF_ERROR_CUDA},
            {"cuGraphInstantiateWithFlags", 2, 1, AICF_ERROR_CUDA},
        };
        size_t c;
        int nth;
        for (c = 0; c < sizeof inj / sizeof inj[0]; ++c) {
            for (nth = 1; nth <= inj[c].max_nth; ++nth) {
                char needle[96];
                CHECK(tplan_make(ctx, &tp, 200, 0), "plan");
                FK.reset();
                FK.fail(inj[c].fn, inj[c].code, nth);
                exec_init(&e, &tp, 0);
                r = aicf__cuda_exec_create_with(&e, test_emit);
                snprintf(needle, sizeof needle, "%s failed: ", inj[c].fn);
                CHECK_ERR(ctx, r, inj[c].expect, needle);
                if (inj[c].expect == AICF_ERROR_DEVICE_OUT_OF_MEMORY)
                    CHECK(strstr(aicf_last_error(ctx), " bytes") != NULL, "OOM message names the bytes: %s", aicf_last_error(ctx));
                CHECK(FK.live() == live1, "%s #%d: %ld driver objects leaked", inj[c].fn, nth, FK.live() - live1);
                CHECK(FK.ctx_depth() == 0, "%s #%d: context stack depth %d", inj[c].fn, nth, FK.ctx_depth());
                CHECK(e.backend == NULL, "%s #%d: no backend state", inj[c].fn, nth);
                /* the context is still usable */
                FK.fail(NULL, 0, 0);
                exec_init(&e, &tp, 0);
                r = aicf__cuda_exec_create_with(&e, test_emit);
                CHECK(r == AICF_SUCCESS, "after %s #%d: exec create: %s", inj[c].fn, nth, aicf_last_error(ctx));
                if (r == AICF_SUCCESS) {
                    run_and_check(&e, &tp, inj[c].fn);
                    aicf__cuda_exec_destroy(&e);
                }
                CHECK(FK.live() == live1, "after %s #%d: no leaks", inj[c].fn, nth);
                tplan_free(&tp);
            }
        }
    }
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "context destroy releases the primary context (%ld vs %ld)", FK.live(), live0);

    /* image choice through the driver: cc 8.9 loads the sm_86 cubin; cc 7.5 has no image */
    FK.reset();
    FK.set_device(1, 8, 9);
    ctx = fake_ctx();
    CHECK(tplan_make(ctx, &tp, 100, 0), "plan");
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS && (const unsigned char*)FK.last_module() == aicf__fk_cubin86, "cc 8.9 -> sm_86 cubin: %s",
          aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        run_and_check(&e, &tp, "cc 8.9");
        aicf__cuda_exec_destroy(&e);
    }
    tplan_free(&tp);
    aicf_context_destroy(ctx);

    FK.reset();
    FK.set_device(1, 7, 5);
    ctx = fake_ctx();
    CHECK(tplan_make(ctx, &tp, 100, 0), "plan");
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK_ERR(ctx, r, AICF_ERROR_NO_KERNEL,
              "module 'test_axpy_f32': device compute capability 7.5 has no kernel image: embedded targets sm_80 sm_86 sm_90 compute_90");
    CHECK(FK.live() == 1, "only the primary context is alive");
    tplan_free(&tp);
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "everything released");
}

/* ---- aicf_exec_benchmark: event timing through the fake driver, the context fast path, faults ----
   The fake advances a device clock by node_us per executed graph node and stamps it at
   cuEventRecord, so each replay's GPU time must be exactly (graph nodes) x node_us: the events
   bracket one launch, no more, no less. */
static void bench_set_x(aicf_exec* e, tplan* tp, float* x) {
    int64_t i;
    for (i = 0; i < tp->n; ++i) x[i] = frand() * 10.0f;
    CHECK(aicf__cuda_exec_set_input(e, 0, x, (size_t)tp->n * 4, 0) == AICF_SUCCESS, "benchmark: set_input: %s",
          aicf_last_error(e->ctx));
}

static void bench_check_out(aicf_exec* e, tplan* tp, const float* x, const char* what) {
    float* z = (float*)malloc((size_t)tp->n * 4);
    int64_t i, bad = 0;
    for (i = 0; i < tp->n; ++i) z[i] = -12345.0f;
    CHECK(aicf_exec_get_output(e, 0, z, (size_t)tp->n * 4) == AICF_SUCCESS, "%s: get_output: %s", what, aicf_last_error(e->ctx));
    for (i = 0; i < tp->n; ++i)
        if (!(z[i] == tp->alpha * x[i] + tp->wdata[i])) bad++;
    CHECK(bad == 0, "%s: %lld of %lld outputs differ from alpha * x + w", what, (long long)bad, (long long)tp->n);
    free(z);
}

static void test_fake_benchmark(void) {
    void (*set_current)(int) = NULL;
    void (*set_node_us)(double) = NULL;
    void* sym;
    aicf_context* ctx;
    tplan tp;
    aicf_exec e;
    aicf_exec_stats st;
    aicf_result r;
    float *x, gpu[64], host[64];
    double node_us = 0.5 + 1.25 * (frand() + 1.0); /* 0.5 .. 3.0 us per node */
    long live0, live1;
    int warmup = 2 + (int)((frand() + 1.0f) * 3.0f), iters = 8 + (int)((frand() + 1.0f) * 20.0f), i, bad;

    sym = dlsym(FK.h, "fakecuda_set_current");
    memcpy(&set_current, &sym, sizeof sym);
    sym = dlsym(FK.h, "fakecuda_set_node_us");
    memcpy(&set_node_us, &sym, sizeof sym);
    CHECK(set_current && set_node_us, "the fake driver exports fakecuda_set_current and fakecuda_set_node_us");
    if (!set_current || !set_node_us) return;
    FK.reset();
    FK.set_device(1, 9, 0);
    set_current(0);
    set_node_us(node_us);
    live0 = FK.live();
    ctx = fake_ctx();
    CHECK(tplan_make(ctx, &tp, 64 + (int64_t)((frand() + 1.0f) * 400.0f), 0), "plan");
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "benchmark: exec create: %s", aicf_last_error(ctx));
    if (r != AICF_SUCCESS) {
        tplan_free(&tp);
        aicf_context_destroy(ctx);
        return;
    }
    live1 = FK.live();
    x = (float*)malloc((size_t)tp.n * 4);
    aicf__cuda_exec_stats(&e, &st);

    /* GPU time = nodes x node_us for every replay; host time of the launch call measured */
    bench_set_x(&e, &tp, x);
    FK.reset();
    for (i = 0; i < 64; ++i) gpu[i] = host[i] = -1.0f;
    r = aicf_exec_benchmark(&e, warmup, iters, gpu, host);
    CHECK(r == AICF_SUCCESS, "benchmark: %s", aicf_last_error(ctx));
    for (i = 0, bad = 0; i < iters; ++i)
        if (!(fabs(gpu[i] - st.graph_nodes * node_us) <= 1e-4 * st.graph_nodes * node_us)) bad++;
    CHECK(bad == 0, "gpu_us: %d of %d replays differ from %d nodes x %.4f us (first %.4f)", bad, iters, st.graph_nodes, node_us, gpu[0]);
    for (i = 0, bad = 0; i < iters; ++i)
        if (!(host[i] >= 0.0f && host[i] < 1e6f)) bad++;
    CHECK(bad == 0, "host_launch_us: %d of %d values outside [0, 1 s) (first %g)", bad, iters, host[0]);
    CHECK(gpu[iters] == -1.0f && host[iters] == -1.0f, "nothing written past iters");
    CHECK(FK.calls("cuGraphLaunch") == warmup + iters && FK.calls("cuEventRecord") == 2 * (warmup + iters) &&
              FK.calls("cuEventSynchronize") == warmup + iters && FK.calls("cuEventElapsedTime") == warmup + iters,
          "one launch, two records, one sync, one elapsed time per replay: %ld launches, %ld records (warmup %d + iters %d)",
          FK.calls("cuGraphLaunch"), FK.calls("cuEventRecord"), warmup, iters);
    CHECK(FK.calls("cuEventCreate") == 2 && FK.calls("cuEventDestroy") == 2, "two events, destroyed: %ld created, %ld destroyed",
          FK.calls("cuEventCreate"), FK.calls("cuEventDestroy"));
    CHECK(FK.calls("cuCtxPushCurrent") == 1 && FK.calls("cuCtxPopCurrent") == 1,
          "no current context: one push/pop for the whole benchmark, none per launch (%ld pushes)", FK.calls("cuCtxPushCurrent"));
    CHECK(FK.live() == live1 && FK.ctx_depth() == 0, "benchmark leaves no driver objects (%ld vs %ld), context depth %d", FK.live(),
          live1, FK.ctx_depth());
    bench_check_out(&e, &tp, x, "after the benchmark");
    /* NULL arrays, no warmup */
    r = aicf_exec_benchmark(&e, 0, 3, NULL, NULL);
    CHECK(r == AICF_SUCCESS, "benchmark with NULL arrays: %s", aicf_last_error(ctx));

    /* the per-replay calls push the primary context only when it is not current */
    FK.reset();
    CHECK(aicf__cuda_exec_launch(&e) == AICF_SUCCESS && aicf__cuda_exec_wait(&e) == AICF_SUCCESS, "launch + wait");
    CHECK(FK.calls("cuCtxPushCurrent") == 2 && FK.calls("cuCtxPopCurrent") == 2 && FK.ctx_depth() == 0,
          "no current context: launch and wait push and pop (%ld pushes)", FK.calls("cuCtxPushCurrent"));
    set_current(1);
    FK.reset();
    bench_set_x(&e, &tp, x);
    CHECK(aicf__cuda_exec_launch(&e) == AICF_SUCCESS && aicf__cuda_exec_wait(&e) == AICF_SUCCESS, "launch + wait (current)");
    bench_check_out(&e, &tp, x, "primary context current");
    r = aicf_exec_benchmark(&e, 1, 4, gpu, host);
    CHECK(r == AICF_SUCCESS && fabs(gpu[3] - st.graph_nodes * node_us) <= 1e-4 * st.graph_nodes * node_us, "benchmark (current): %s",
          aicf_last_error(ctx));
    CHECK(FK.calls("cuCtxPushCurrent") == 0 && FK.calls("cuCtxPopCurrent") == 0,
          "primary context current: set_input, launch, wait, get_output, benchmark push nothing (%ld pushes)",
          FK.calls("cuCtxPushCurrent"));
    CHECK(FK.calls("cuCtxGetCurrent") >= 5, "cuCtxGetCurrent asked (%ld)", FK.calls("cuCtxGetCurrent"));
    set_current(0);

    /* bad arguments */
    r = aicf_exec_benchmark(&e, 1, 0, gpu, host);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_benchmark: warmup 1 must be >= 0, iters 0 >= 1");
    r = aicf_exec_benchmark(&e, -1, 5, gpu, host);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "warmup -1");
    r = aicf_exec_benchmark(&e, 0x7fffffff, 5, gpu, host);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "their sum fit an int");
    CHECK(aicf_exec_benchmark(NULL, 0, 5, gpu, host) == AICF_ERROR_INVALID_ARGUMENT, "NULL exec");

    /* a failing driver call at each place: the code, a message naming the call and the replay,
       no events leaked, the context stack balanced, and the next benchmark works */
    {
        static const struct {
            const char* fn;
            int code, nth;
            const char* needle;
        } inj[] = {
            {"cuEventCreate", 2, 1, "cuEventCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): aicf_exec_benchmark, timing events"},
            {"cuEventCreate", 999, 2, "cuEventCreate failed: CUDA_ERROR_UNKNOWN (unknown error): aicf_exec_benchmark, timing events"},
            {"cuEventRecord", 999, 1, "cuEventRecord failed: CUDA_ERROR_UNKNOWN (unknown error): aicf_exec_benchmark, replay 1 of"},
            {"cuEventRecord", 700, 4, "cuEventRecord failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered): aicf_exec_benchmark, replay 2 of"},
            {"cuEventSynchronize", 700, 3, "cuEventSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered): aicf_exec_benchmark, replay 3 of"},
            {"cuEventElapsedTime", 400, 2, "cuEventElapsedTime failed: CUDA_ERROR_INVALID_HANDLE (invalid resource handle): aicf_exec_benchmark, replay 2 of"},
            {"cuGraphLaunch", 700, 3, "cuGraphLaunch failed: CUDA_ERROR_ILLEGAL_ADDRESS"},
            {"cuCtxPushCurrent", 201, 1, "cuCtxPushCurrent failed: "},
        };
        size_t c;
        for (c = 0; c < sizeof inj / sizeof inj[0]; ++c) {
            FK.reset();
            FK.fail(inj[c].fn, inj[c].code, inj[c].nth);
            r = aicf_exec_benchmark(&e, 1, 4, gpu, host);
            CHECK_ERR(ctx, r, AICF_ERROR_CUDA, inj[c].needle);
            CHECK(FK.live() == live1, "%s #%d: %ld driver objects leaked", inj[c].fn, inj[c].nth, FK.live() - live1);
            CHECK(FK.ctx_depth() == 0, "%s #%d: context stack depth %d", inj[c].fn, inj[c].nth, FK.ctx_depth());
            FK.fail(NULL, 0, 0);
            bench_set_x(&e, &tp, x);
            r = aicf_exec_benchmark(&e, 0, 2, gpu, host);
            CHECK(r == AICF_SUCCESS && fabs(gpu[1] - st.graph_nodes * node_us) <= 1e-4 * st.graph_nodes * node_us,
                  "after %s #%d: benchmark: %s", inj[c].fn, inj[c].nth, aicf_last_error(ctx));
            bench_check_out(&e, &tp, x, inj[c].fn);
        }
    }
    free(x);
    aicf__cuda_exec_destroy(&e);
    CHECK(FK.live() == live0 + 1, "exec destroy frees everything but the primary context (%ld vs %ld)", FK.live(), live0 + 1);
    tplan_free(&tp);
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "everything released (%ld vs %ld)", FK.live(), live0);
}

/* ---- aicf_exec_profile on the fake driver: the graph's event nodes bracket every step; with
   every leaf node taking node_us on the fake clock, step s takes (its nodes) x node_us ---- */
static void test_fake_profile(void) {
    void (*set_node_us)(double) = NULL;
    void* sym;
    aicf_context* ctx;
    tplan tp;
    aicf_exec e, e0;
    aicf_exec_stats st;
    aicf_result r;
    float* x;
    float us[4];
    double node_us = 0.5 + 1.25 * (frand() + 1.0);
    long live0, live1;
    int warmup = 1 + (int)((frand() + 1.0f) * 2.0f), iters = 5 + (int)((frand() + 1.0f) * 10.0f), s, bad = 0;
    sym = dlsym(FK.h, "fakecuda_set_node_us");
    memcpy(&set_node_us, &sym, sizeof sym);
    CHECK(set_node_us != NULL, "the fake driver exports fakecuda_set_node_us");
    if (!set_node_us) return;
    FK.reset();
    FK.set_device(1, 9, 0);
    set_node_us(node_us);
    live0 = FK.live();
    ctx = fake_ctx();
    CHECK(tplan_make(ctx, &tp, 64 + (int64_t)((frand() + 1.0f) * 300.0f), 0), "plan");
    for (s = 1; s < 3; ++s) tp.steps[s] = tp.steps[0]; /* three steps, each a kernel + a copy node */
    tp.p.n_steps = 3;
    CHECK(aicf_plan_num_steps(&tp.p) == 3 && aicf_plan_num_steps(NULL) == -1, "aicf_plan_num_steps");
    exec_init(&e, &tp, AICF_EXEC_PROFILE);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "profile: exec create: %s", aicf_last_error(ctx));
    if (r != AICF_SUCCESS) {
        tplan_free(&tp);
        aicf_context_destroy(ctx);
        return;
    }
    live1 = FK.live();
    aicf__cuda_exec_stats(&e, &st);
    CHECK(st.graph_nodes == 2 + 3 * 2 + 4, "graph: copy-in, 3 x (kernel, copy), copy-out and 4 event nodes: %d nodes", st.graph_nodes);
    CHECK(st.kernel_nodes == 3, "kernel nodes %d", st.kernel_nodes);
    x = (float*)malloc((size_t)tp.n * 4);
    bench_set_x(&e, &tp, x);
    FK.reset();
    for (s = 0; s < 4; ++s) us[s] = -1.0f;
    r = aicf_exec_profile(&e, warmup, iters, us, 3);
    CHECK(r == AICF_SUCCESS, "profile: %s", aicf_last_error(ctx));
    for (s = 0; s < 3; ++s)
        if (!(fabs(us[s] - 2.0 * node_us) <= 1e-4 * node_us)) bad++;
    CHECK(bad == 0, "step times %.4f %.4f %.4f us, expected 2 x %.4f", us[0], us[1], us[2], node_us);
    CHECK(us[3] == -1.0f, "nothing written past num_steps");
    CHECK(FK.calls("cuGraphLaunch") == warmup + iters && FK.calls("cuEventElapsedTime") == 3 * iters,
          "one launch per replay, one elapsed time per step and timed replay: %ld launches, %ld elapsed", FK.calls("cuGraphLaunch"),
          FK.calls("cuEventElapsedTime"));
    CHECK(FK.live() == live1 && FK.ctx_depth() == 0, "profile leaves no driver objects (%ld vs %ld)", FK.live(), live1);
    bench_check_out(&e, &tp, x, "after the profile");
    /* bad arguments */
    r = aicf_exec_profile(&e, 0, 3, us, 2);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "aicf_exec_profile: num_steps 2, the plan has 3 steps");
    r = aicf_exec_profile(&e, 0, 0, us, 3);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "iters 0 >= 1");
    r = aicf_exec_profile(&e, 0, 3, NULL, 3);
    CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "step_us NULL");
    CHECK(aicf_exec_profile(NULL, 0, 3, us, 3) == AICF_ERROR_INVALID_ARGUMENT, "NULL exec");
    /* a failing elapsed-time query names the replay and the step; the next profile works */
    FK.reset();
    FK.fail("cuEventElapsedTime", 400, 5);
    r = aicf_exec_profile(&e, 0, 3, us, 3);
    CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuEventElapsedTime failed: CUDA_ERROR_INVALID_HANDLE (invalid resource handle): aicf_exec_profile, replay 2 of 3, step 1");
    FK.fail(NULL, 0, 0);
    CHECK(FK.ctx_depth() == 0, "context stack depth %d after the failure", FK.ctx_depth());
    r = aicf_exec_profile(&e, 0, 2, us, 3);
    CHECK(r == AICF_SUCCESS && fabs(us[2] - 2.0 * node_us) <= 1e-4 * node_us, "profile after the failure: %s", aicf_last_error(ctx));
    /* event creation failing at exec creation: an error naming it, nothing leaked */
    FK.fail("cuEventCreate", 2, 3);
    exec_init(&e0, &tp, AICF_EXEC_PROFILE);
    r = aicf__cuda_exec_create_with(&e0, test_emit);
    CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuEventCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): AICF_EXEC_PROFILE timing events");
    FK.fail(NULL, 0, 0);
    CHECK(FK.live() == live1, "a failed profiling exec leaks nothing (%ld vs %ld)", FK.live(), live1);
    aicf__cuda_exec_destroy(&e);
    /* an exec without the flag: no event nodes, and the profile refuses */
    exec_init(&e0, &tp, 0);
    r = aicf__cuda_exec_create_with(&e0, test_emit);
    CHECK(r == AICF_SUCCESS, "exec without AICF_EXEC_PROFILE: %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        aicf__cuda_exec_stats(&e0, &st);
        CHECK(st.graph_nodes == 2 + 3 * 2, "no event nodes without the flag: %d nodes", st.graph_nodes);
        r = aicf_exec_profile(&e0, 0, 3, us, 3);
        CHECK_ERR(ctx, r, AICF_ERROR_STATE, "aicf_exec_profile: the exec was created without AICF_EXEC_PROFILE");
        aicf__cuda_exec_destroy(&e0);
    }
    free(x);
    CHECK(FK.live() == live0 + 1, "exec destroy frees the events and everything but the primary context (%ld vs %ld)", FK.live(),
          live0 + 1);
    tplan_free(&tp);
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "everything released (%ld vs %ld)", FK.live(), live0);
}

/* ---- aicf_exec_benchmark on the CPU backend: gpu_us is the wall time of each run ---- */
static void test_cpu_benchmark(void) {
    aicf_context* ctx = NULL;
    aicf_context_desc cd;
    aicf_graph* g = NULL;
    aicf_plan* p = NULL;
    aicf_exec* e = NULL;
    aicf_plan_desc pd;
    aicf_tensor_desc td;
    aicf_node_desc nd;
    const char* ins[2] = {"a", "b"};
    const char* outs[1] = {"y"};
    int64_t n = 1000 + (int64_t)((frand() + 1.0f) * 5000.0f), i, bad = 0;
    float *a = (float*)malloc((size_t)n * 4), *b = (float*)malloc((size_t)n * 4), *y = (float*)malloc((size_t)n * 4);
    float gpu[16], host[16];
    aicf_result r;
    int k;
    memset(&cd, 0, sizeof cd);
    cd.flags = AICF_CONTEXT_NO_CUDA;
    CHECK(aicf_context_create(&cd, &ctx) == AICF_SUCCESS, "context");
    CHECK(aicf_graph_create(ctx, &g) == AICF_SUCCESS, "graph");
    memset(&td, 0, sizeof td);
    td.dtype = AICF_DTYPE_FLOAT32;
    td.rank = 1;
    td.dims = &n;
    td.name = "a";
    CHECK(aicf_graph_add_input(g, &td) == AICF_SUCCESS, "input a");
    td.name = "b";
    CHECK(aicf_graph_add_input(g, &td) == AICF_SUCCESS, "input b");
    memset(&nd, 0, sizeof nd);
    nd.name = "add";
    nd.op_type = "Add";
    nd.inputs = ins;
    nd.num_inputs = 2;
    nd.outputs = outs;
    nd.num_outputs = 1;
    CHECK(aicf_graph_add_node(g, &nd) == AICF_SUCCESS, "node: %s", aicf_last_error(ctx));
    CHECK(aicf_graph_add_output(g, "y") == AICF_SUCCESS, "output");
    memset(&pd, 0, sizeof pd);
    pd.backend = AICF_BACKEND_CPU;
    r = aicf_plan_create(g, &pd, &p);
    CHECK(r == AICF_SUCCESS, "cpu plan: %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS && aicf_exec_create(p, NULL, &e) == AICF_SUCCESS) {
        for (i = 0; i < n; ++i) {
            a[i] = frand() * 4.0f;
            b[i] = frand() * 4.0f;
        }
        CHECK(aicf_exec_set_input(e, 0, a, (size_t)n * 4) == AICF_SUCCESS && aicf_exec_set_input(e, 1, b, (size_t)n * 4) == AICF_SUCCESS,
              "cpu inputs");
        for (k = 0; k < 16; ++k) gpu[k] = host[k] = -1.0f;
        r = aicf_exec_benchmark(e, 2, 15, gpu, host);
        CHECK(r == AICF_SUCCESS, "cpu benchmark: %s", aicf_last_error(ctx));
        for (k = 0, bad = 0; k < 15; ++k)
            if (!(gpu[k] >= 0.0f && gpu[k] < 1e6f && gpu[k] == host[k])) bad++;
        CHECK(bad == 0 && gpu[15] == -1.0f, "cpu benchmark: gpu_us = host_launch_us = the run's wall time (%d bad, first %g)", (int)bad,
              gpu[0]);
        CHECK(aicf_exec_get_output(e, 0, y, (size_t)n * 4) == AICF_SUCCESS, "cpu output");
        for (i = 0, bad = 0; i < n; ++i)
            if (!(y[i] == a[i] + b[i])) bad++;
        CHECK(bad == 0, "cpu benchmark: %lld of %lld outputs differ from a + b", (long long)bad, (long long)n);
        r = aicf_exec_benchmark(e, 0, 0, gpu, host);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "iters 0 >= 1");
        /* the per-step profile: the plan's one step, its wall time; the result unchanged */
        CHECK(aicf_plan_num_steps(p) == 1, "cpu plan: %d steps", aicf_plan_num_steps(p));
        gpu[0] = gpu[1] = -1.0f;
        r = aicf_exec_profile(e, 1, 9, gpu, 1);
        CHECK(r == AICF_SUCCESS && gpu[0] > 0.0f && gpu[0] < 1e6f && gpu[1] == -1.0f, "cpu profile: %s (step 0: %g us)",
              aicf_last_error(ctx), gpu[0]);
        for (i = 0; i < n; ++i) y[i] = -7.0f;
        CHECK(aicf_exec_get_output(e, 0, y, (size_t)n * 4) == AICF_SUCCESS, "cpu output after the profile");
        for (i = 0, bad = 0; i < n; ++i)
            if (!(y[i] == a[i] + b[i])) bad++;
        CHECK(bad == 0, "cpu profile: %lld outputs differ from a + b", (long long)bad);
        r = aicf_exec_profile(e, 0, 5, gpu, 2);
        CHECK_ERR(ctx, r, AICF_ERROR_INVALID_ARGUMENT, "num_steps 2, the plan has 1 steps");
    }
    aicf_exec_destroy(e);
    aicf_plan_destroy(p);
    aicf_graph_destroy(g);
    aicf_context_destroy(ctx);
    free(a);
    free(b);
    free(y);
}

/* ---- a step's arena scratch (aicf__step.scratch_bytes / scratch_offset, src/82_cuda_conv.c's
   im2col buffer) through the whole exec path: the kernel writes alpha * x + w into the scratch
   that aicf__cuda_scratch_ptr resolves, a copy node moves it to z; a scratch that does not fit
   the arena resolves to 0. ---- */
static void test_fake_scratch(void) {
    aicf_context* ctx;
    tplan tp;
    aicf_exec e;
    aicf_result r;
    long live0;
    size_t fb;
    FK.reset();
    FK.set_device(1, 9, 0);
    live0 = FK.live();
    ctx = fake_ctx();
    CHECK(tplan_make(ctx, &tp, 300 + (int64_t)((frand() + 1.0f) * 300.0f), 0), "scratch: plan");
    fb = al256((size_t)tp.n * 4);
    tp.mode = 8;
    tp.steps[0].scratch_bytes = (size_t)tp.n * 4;
    tp.steps[0].scratch_offset = 3 * fb; /* after x, y, z */
    tp.p.arena_bytes = 4 * fb;
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK(r == AICF_SUCCESS, "scratch: exec create: %s", aicf_last_error(ctx));
    if (r == AICF_SUCCESS) {
        uint64_t xp = 0, yp = 0;
        run_and_check(&e, &tp, "scratch run 1");
        run_and_check(&e, &tp, "scratch run 2 (replay)");
        aicf__cuda_exec_device_ptr(&e, TX, &xp);
        aicf__cuda_exec_device_ptr(&e, TY, &yp);
        CHECK(xp && yp == xp + fb, "scratch: arena layout (x at %llx, y at %llx)", (unsigned long long)xp, (unsigned long long)yp);
        aicf__cuda_exec_destroy(&e);
    }
    /* the scratch's end one byte past the arena */
    tp.steps[0].scratch_offset = 3 * fb + 4;
    tp.steps[0].scratch_bytes = fb - 3;
    exec_init(&e, &tp, 0);
    r = aicf__cuda_exec_create_with(&e, test_emit);
    CHECK_ERR(ctx, r, AICF_ERROR_STATE, "test_emit: null tensor address");
    CHECK(e.backend == NULL, "scratch outside the arena: nothing left behind");
    tplan_free(&tp);
    aicf_context_destroy(ctx);
    CHECK(FK.live() == live0, "scratch: everything released (%ld vs %ld)", FK.live(), live0);
}

/* Programmatic dependent launch: consecutive generated kernels are joined by a programmatic
   edge from the programmatic port (fired by each block's griddepcontrol.launch_dependents after
   its wait; the launch-order port let waiting kernels pile up) on compute capability >= 9.0
   when the driver has the 12.3 edge API and the exec asks for it (AICF_EXEC_PDL) or the plan
   made the launch programmatic (its pdl);
   not after a copy node, not by default, not on 8.x, not without the entry point;
   a failing edge call fails the exec cleanly. The outputs are the same in every case. */
static void test_fake_pdl(void) {
    static const struct { int major, minor; uint32_t flags; int pdl, missing, fail, want; const char* what; } C[] = {
        {9, 0, AICF_EXEC_PDL, 0, 0, 0, 1, "sm_90, AICF_EXEC_PDL: kernel -> kernel edge is programmatic"},
        {9, 0, 0, 0, 0, 0, 0, "sm_90 by default: full dependencies"},
        {9, 0, 0, 1, 0, 0, 1, "sm_90, the plan's pdl on the launches: the kernel -> kernel edge is programmatic"},
        {8, 6, AICF_EXEC_PDL, 0, 0, 0, 0, "sm_86: no griddepcontrol in the images, full dependencies"},
        {8, 6, 0, 1, 0, 0, 0, "sm_86, the plan's pdl: full dependencies"},
        {9, 0, AICF_EXEC_PDL, 0, 1, 0, 0, "driver without cuGraphAddDependencies 12.3: full dependencies"},
        {9, 0, 0, 1, 1, 0, 0, "the plan's pdl, driver without cuGraphAddDependencies 12.3: full dependencies"},
        {9, 0, AICF_EXEC_PDL, 0, 0, 1, -1, "cuGraphAddDependencies fails: the exec is not created"},
        {9, 0, 0, 1, 0, 1, -1, "the plan's pdl, cuGraphAddDependencies fails: the exec is not created"},
    };
    size_t c;
    for (c = 0; c < sizeof C / sizeof C[0]; c++) {
        aicf_context* ctx;
        tplan tp;
        aicf_exec e;
        aicf_exec_stats st;
        aicf_result r;
        long live0;
        FK.reset();
        FK.set_device(1, C[c].major, C[c].minor);
        if (C[c].missing) FK.missing("cuGraphAddDependencies");
        live0 = FK.live();
        ctx = fake_ctx();
        if (!ctx || !tplan_make(ctx, &tp, 100 + (int64_t)((frand() + 1.0f) * 200.0f), 0)) {
            CHECK(0, "pdl %s: context and plan", C[c].what);
            aicf_context_destroy(ctx);
            continue;
        }
        tp.mode = 9;
        tp.pdl = C[c].pdl;
        if (C[c].fail) FK.fail("cuGraphAddDependencies", 999, 0);
        exec_init(&e, &tp, C[c].flags);
        r = aicf__cuda_exec_create_with(&e, test_emit);
        if (C[c].want < 0) {
            CHECK_ERR(ctx, r, AICF_ERROR_CUDA, "cuGraphAddDependencies");
            CHECK(e.backend == NULL, "pdl %s: nothing left behind", C[c].what);
        } else {
            CHECK(r == AICF_SUCCESS, "pdl %s: exec create: %s", C[c].what, aicf_last_error(ctx));
            if (r == AICF_SUCCESS) {
                memset(&st, 0, sizeof st);
                aicf__cuda_exec_stats(&e, &st);
                CHECK(FK.programmatic_port() == (C[c].want ? 1 : -1), "pdl %s: edge from port %d", C[c].what,
                      FK.programmatic_port());
                CHECK(st.programmatic_edges == C[c].want && FK.programmatic_edges() == C[c].want && st.kernel_nodes == 2,
                      "pdl %s: %d programmatic edges in the stats, %ld added, %d kernel nodes (want %d)", C[c].what,
                      st.programmatic_edges, FK.programmatic_edges(), st.kernel_nodes, C[c].want);
                run_and_check(&e, &tp, C[c].what);
                aicf__cuda_exec_destroy(&e);
            }
        }
        tplan_free(&tp);
        aicf_context_destroy(ctx);
        CHECK(FK.live() == live0, "pdl %s: everything released (%ld vs %ld)", C[c].what, FK.live(), live0);
    }
    FK.reset();
}

int main(int argc, char** argv) {
    const char* seed_env = getenv("AICF_SEED");
    g_rng = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 12345u;
    if (!g_rng) g_rng = 1;
    printf("seed %llu (AICF_SEED=%llu repeats this run)\n", (unsigned long long)g_rng, (unsigned long long)g_rng);

#if defined(TEST_HAVE_CUDA_HEADERS)
    g_pass++; /* the static checks above compiled */
    printf("ok   re-declared driver/cuBLASLt types, constants and ABI versions match cuda.h %d, cublasLt.h %d\n", CUDA_VERSION, CUBLAS_VERSION);
#else
    g_skip++;
    printf("SKIP re-declared type checks: cuda.h, cudaTypedefs.h or cublasLt.h not on the include path (add -I$CUDA_HOME/include)\n");
#endif
    test_image_choice();
    test_absent_driver();
    test_cpu_benchmark();

    g_fake_path = argc > 1 ? argv[1] : getenv("AICF_FAKE_CUDA");
    if (!g_fake_path) g_fake_path = "build/fakecuda/libcuda.so.1";
    if (!fake_load(g_fake_path)) {
        g_fail++;
        printf("FAIL the fake driver %s could not be loaded (%s); build it: make build/fakecuda/libcuda.so.1\n", g_fake_path,
               dlerror());
    } else {
        test_fake_init();
        test_fake_exec();
        test_fake_benchmark();
        test_fake_profile();
        test_fake_scratch();
        test_fake_pdl();
    }
    printf("%d passed, %d failed, %d skipped\n", g_pass, g_fail, g_skip);
    return g_fail ? 1 : 0;
}
