#include "hdf5_isolation.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"

namespace mrwb {

void survive_hdf5_read(const std::string& path, const std::function<void()>& read) {
  wait_for_cuda_start();  // no other thread of ours inside the loader or malloc while we fork
  const pid_t child = fork();
  if (child < 0) return;
  if (child == 0) {
    // No core file, no output: the parent says what happened, in one line.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    int code = 0;
    try {
      read();
    } catch (...) {
      code = 2;  // refused (or failed) cleanly: the parent's own read says why
    }
    _exit(code);  // no atexit handlers, no leak report: only whether HDF5 survived counts
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return;
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 2)) return;
  const std::string how = WIFSIGNALED(status) ? std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                                    strsignal(WTERMSIG(status)) + ")"
                                              : "exit code " + std::to_string(WEXITSTATUS(status));
  throw InputError(path + ": the HDF5 library failed reading it (" + how +
                   "; a damaged file: allowed are files HDF5 reads, as ISMRMRD writers make them)");
}

}  // namespace mrwb
