#pragma once
// Functions shared verbatim by the CPU reference (core) and the CUDA kernels (gpu): MRWB_HD marks them
// __host__ __device__ under nvcc and plain inline elsewhere, so core builds without CUDA headers.
#if defined(__CUDACC__)
#define MRWB_HD __host__ __device__ __forceinline__
#define MRWB_UNROLL _Pragma("unroll")
#else
#define MRWB_HD inline
#define MRWB_UNROLL  // the host compiler unrolls on its own (and warns on the CUDA pragma)
#endif
