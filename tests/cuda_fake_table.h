/* cuda_fake_table.h: the kernel table of tests/test_cuda_fake.c (included by aicf.h through
   AICF_KERNEL_TABLE_FILE). The images are not real cubins or PTX: tests/fake_libcuda.c accepts
   any image unless it starts with "BADCUBIN" (CUDA_ERROR_NO_BINARY_FOR_GPU) or "JITFAIL"
   (CUDA_ERROR_INVALID_PTX with a JIT log), and finds a function if its name occurs in the image. */
#define AICF__KT_NVRTC_VERSION "13.0"
#define AICF__KT_TARGETS "sm_80 sm_86 sm_90 compute_90"
#define AICF__KT_NUM_MODULES 2
#define AICF__KT_NUM_IMAGES 5
#define AICF__KT_NUM_KERNELS 2

static const unsigned char aicf__fk_cubin80[] = "FAKECUBIN sm_80: aicf_test_axpy";
static const unsigned char aicf__fk_cubin86[] = "FAKECUBIN sm_86: aicf_test_axpy";
static const unsigned char aicf__fk_cubin90[] = "BADCUBIN sm_90: aicf_test_axpy";
static const unsigned char aicf__fk_ptx90[] = "// compute_90\n.version 8.0\n.target sm_90\n// aicf_test_axpy\n";
static const unsigned char aicf__fk_ptx80_bad[] = "JITFAIL compute_80: aicf_test_bad";

static const aicf__kt_module aicf__kt_modules[2] = {
    {"test_axpy_f32", "0000"},
    {"test_bad", "0000"},
};
static const aicf__kt_image aicf__kt_images[5] = {
    {0, 80, 0, aicf__fk_cubin80, sizeof aicf__fk_cubin80},
    {0, 86, 0, aicf__fk_cubin86, sizeof aicf__fk_cubin86},
    {0, 90, 0, aicf__fk_cubin90, sizeof aicf__fk_cubin90},
    {0, 90, 1, aicf__fk_ptx90, sizeof aicf__fk_ptx90},
    {1, 80, 1, aicf__fk_ptx80_bad, sizeof aicf__fk_ptx80_bad},
};
static const aicf__kt_kernel aicf__kt_kernels[2] = {
    {"aicf_test_axpy", 0, "axpy", "f32", "", 256},
    {"aicf_test_bad", 1, "axpy", "f32", "", 256},
};
