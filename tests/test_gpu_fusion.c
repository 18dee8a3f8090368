/* The fusion tests (tests/test_fusion.c) on CUDA: GPU suite. */
#define AICF_FUSION_TEST_CUDA 1
#include "test_fusion.c"
