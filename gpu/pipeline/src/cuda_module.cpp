// The entry point of libmrwb_cuda.so, which core's load_cuda_backends() (base/cuda_backends.hpp) calls once.
#include <cstring>

#include "mrwb/base/version.hpp"
#include "mrwb_gpu/pipeline/register_backends.hpp"

extern "C" __attribute__((visibility("default"))) const char* mrwb_cuda_module_register(const char* program_version) {
  if (std::strcmp(program_version, mrwb::version_string) != 0) return "built for another version of the workbench";
  mrwb::gpu::register_backends();
  return nullptr;
}
