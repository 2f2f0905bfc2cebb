#pragma once
// Outputs (docs/input-limits.md, "Outputs"): every file the workbench writes goes to a temporary beside its
// target and is renamed into place, so a failed or cancelled write never leaves a partial file. The outputs of
// one command go through one OutputTransaction, which renames them together once every one is written, or
// removes them all; no output may be one of the command's inputs.
#include <string>
#include <vector>

namespace mrwb {

class AtomicOutput {
 public:
  // Checks the target first (require_output_folder; while a transaction is open, not one of its inputs and
  // not an output of the run already): InputError, before anything is written.
  explicit AtomicOutput(const std::string& target);
  ~AtomicOutput();  // removes the temporary unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  // The temporary is complete: renamed onto the target now, or, while an OutputTransaction is open, handed to
  // it (renamed with the run's other outputs at its commit).
  void commit();
  // A write to the temporary failed: throws the one-line InputError "TARGET: cannot write (REASON; allowed:
  // ...)", REASON from errno as the caller left it (or `reason` where given).
  [[noreturn]] void fail(const std::string& reason = "") const;
  // The temporary's bytes, written whole or fail()ed (the writers whose library builds the file in memory).
  void write_bytes(const void* data, std::size_t size) const;

 private:
  std::string target_, temp_;
  bool committed_ = false, joined_ = false;
};

// The outputs of one command, all or nothing. While it is open every AtomicOutput of the process joins it;
// commit() renames their temporaries in the order they were finished (a BART .cfl before its .hdr, so a reader
// never finds a header without its data); destroyed uncommitted (an exception, a cancel, one output failing),
// it removes every temporary, so the run leaves none of its outputs. One at a time (std::logic_error else).
//
// What remains: each rename is atomic, a run of several is not. A commit that fails part-way puts back the
// targets it replaced (kept as hard links until the last rename succeeded) and removes the new ones; a process
// killed between two renames (SIGKILL, power) leaves the targets renamed so far, each whole, and the hidden
// temporaries (.NAME.tmpPID_N) of the others.
class OutputTransaction {
 public:
  OutputTransaction();
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Files the command reads: an output that is one of them (the same file by device and inode, whatever the
  // spelling: another path, a symbolic link, a hard link) is refused. Missing files are skipped (their reader
  // refuses them).
  void protect_inputs(const std::vector<std::string>& paths);
  // Checks the outputs before the work starts: require_output_folder, not an input, no file named twice.
  void expect_outputs(const std::vector<std::string>& paths);
  // Renames every finished output onto its target; InputError naming the target where one cannot be.
  void commit();

 private:
  bool committed_ = false;
};

// Throws InputError (one line: the path and what is allowed) unless `path` can be an output: every name at most
// NAME_MAX bytes and the path short enough for its temporary (PATH_MAX), not a folder nor another kind of
// non-regular file, in a folder that exists and is writable.
void require_output_folder(const std::string& path);

}  // namespace mrwb
