#pragma once
// The outputs of one `mrwb` command (base/atomic_file.hpp's OutputTransaction; docs/input-limits.md, "Outputs"):
// its inputs protected and its outputs checked before the work starts, every output written to a temporary
// beside it, and all of them renamed into place by commit() once the last is written, or none.
#include <string>
#include <vector>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/io/file_io.hpp"

namespace mrwb::cli {

class CommandOutputs {
 public:
  // inputs, outputs: the paths as given (a BART name stands for its .cfl and .hdr; empty ones are left out).
  CommandOutputs(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    transaction_.protect_inputs(files_of(inputs));
    transaction_.expect_outputs(files_of(outputs));
  }
  // Outputs known only once the inputs are read (derived names), checked as the ones above.
  void expect(const std::vector<std::string>& outputs) { transaction_.expect_outputs(files_of(outputs)); }
  // Before the command says what it wrote.
  void commit() { transaction_.commit(); }

 private:
  OutputTransaction transaction_;
};

}  // namespace mrwb::cli
