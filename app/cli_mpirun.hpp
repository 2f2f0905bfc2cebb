#pragma once
#include <string>
#include <vector>

namespace mrwb::cli {

// `mpirun --oversubscribe -np ranks <this executable> <args without --ranks>`, waited for. mpirun's
// framed reports on stderr become one line: "rank R: killed by signal N (name)" for a rank that died,
// nothing for a rank that ended the run itself (it said why). Returns 0, 130 (cancelled) or 2.
int rerun_through_mpirun(int ranks, const std::vector<std::string>& args);

}  // namespace mrwb::cli
