#pragma once
// HDF5 1.10.8 (Debian 12) crashes on some damaged metadata that no layout check of ours can foresee
// without re-implementing the format: a local heap whose read fails leaves a null buffer that H5F__accum_read
// copies from, a compound conversion writes through freed memory (both found by fuzz/fuzz_ismrmrd_file, both
// SIGSEGV in `mrwb recon` without sanitizers too); HDFGroup/hdf5's issue tracker lists many more of the class,
// fixed in later releases. So every ISMRMRD read runs first in a child process: if HDF5 takes the child down,
// the file is refused in one line instead of the workbench going down with it.
#include <functional>
#include <string>

namespace mrwb {

// Runs `read` in a forked child with stdout and stderr discarded, and waits for it. Returns when the child
// finished, whatever `read` did (read the file or refused it: the caller then reads in process and gets
// the same result); throws InputError naming `path` when the child died (a signal, a sanitizer report, out of
// memory). Where fork fails, returns at once (the read then runs in process only).
void survive_hdf5_read(const std::string& path, const std::function<void()>& read);

}  // namespace mrwb
