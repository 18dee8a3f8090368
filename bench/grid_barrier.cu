// Grid-barrier cost on this GPU (docs/benchmarks.md, "Persistent GEMV launches"): per-barrier time of
// aicf_gemvp's barrier, a release-add/relaxed-poll variant, cooperative groups' grid.sync() and a
// thread-block cluster barrier. Build and run on the GPU machine:
//   nvcc -arch=sm_90 -O3 bench/grid_barrier.cu -o build/grid_barrier && build/grid_barrier
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ void bar_v1(unsigned* bar) {  // aicf_gemvp's barrier
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
        unsigned old, cur;
        __threadfence();
        old = atomicAdd(bar, add);
        do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(cur) : "l"(bar) : "memory"); } while (((old ^ cur) & 0x80000000u) == 0u);
        __threadfence();
    }
    __syncthreads();
}
__device__ __forceinline__ void bar_v2(unsigned* bar) {  // release add, relaxed poll, one acquire fence
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
        unsigned old, cur;
        asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(bar), "r"(add) : "memory");
        do { asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(cur) : "l"(bar) : "memory"); } while (((old ^ cur) & 0x80000000u) == 0u);
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    __syncthreads();
}
template <int V>
__global__ void __launch_bounds__(256, 1) kbar(unsigned* bar, int iters, float* sink) {
    float acc = threadIdx.x;
    for (int i = 0; i < iters; ++i) {
        if (V == 1) bar_v1(bar);
        else if (V == 2) bar_v2(bar);
        else if (V == 3) cg::this_grid().sync();
        else if (V == 4) cg::this_cluster().sync();
        acc += 1.0f;
    }
    if (acc < 0) sink[0] = acc;
}
int main() {
    unsigned* bar; float* sink;
    cudaMalloc(&bar, 256); cudaMemset(bar, 0, 256); cudaMalloc(&sink, 4);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    int grids[] = {8, 16, 32, 64, 128, 132};
    for (int v = 1; v <= 4; ++v) {
        for (int gi = 0; gi < 6; ++gi) {
            int g = grids[gi];
            float ms[2];
            for (int pass = 0; pass < 2; ++pass) {
                int iters = pass ? 1001 : 1;
                cudaEventRecord(e0);
                for (int rep = 0; rep < 5; ++rep) {
                    if (v <= 2) (v == 1 ? kbar<1> : kbar<2>)<<<g, 256>>>(bar, iters, sink);
                    else if (v == 3) { void* args[] = {&bar, &iters, &sink}; cudaLaunchCooperativeKernel((void*)kbar<3>, g, 256, args); }
                    else {
                        if (g > 16) continue;
                        cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1];
                        cfg.gridDim = g; cfg.blockDim = 256;
                        at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = g; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
                        cfg.attrs = at; cfg.numAttrs = 1;
                        cudaFuncSetAttribute(kbar<4>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
                        cudaLaunchKernelEx(&cfg, kbar<4>, bar, iters, sink);
                    }
                }
                cudaEventRecord(e1); cudaEventSynchronize(e1);
                cudaEventElapsedTime(&ms[pass], e0, e1);
            }
            cudaError_t err = cudaGetLastError();
            if (v == 4 && g > 16) continue;
            printf("variant %d grid %3d: %.3f us per barrier (launch+1 barrier %.2f us) %s\n", v, g, (ms[1] - ms[0]) * 1000.0 / 5 / 1000.0,
                   ms[0] * 1000.0 / 5, cudaGetErrorString(err));
        }
    }
    return 0;
}
