#include <cstdlib>
#include <string>

#include "mrwb_mpi/simulation/mpi_rank_comm.hpp"

namespace mrwb::mpi {

int launched_world_size() {
  // OpenMPI's mpirun sets the first; PMIx and PMI launchers (srun, hydra) the others.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name); v && *v) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  return 0;
}

}  // namespace mrwb::mpi
