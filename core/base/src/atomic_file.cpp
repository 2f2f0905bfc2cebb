#include "mrwb/base/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace fs = std::filesystem;
namespace {

// A temporary's name (and a replaced target's, kept during a commit) is the target's plus at most this many bytes:
// "." before it, ".tmp" + pid + "_" + counter before its extension.
constexpr std::size_t k_sibling_extra = 32;
constexpr std::size_t k_max_output_path = PATH_MAX - 1 - k_sibling_extra;
const char* const k_room = "allowed: a folder with room for the file and write permission";

// A path in a message: whole up to 160 bytes, else its start and its end around its length.
std::string shown(const std::string& p) {
  if (p.size() <= 160) return p;
  return p.substr(0, 80) + "...(" + std::to_string(p.size()) + " bytes)..." + p.substr(p.size() - 60);
}

// ".STEM<tag>PID_N.EXT" beside `target`: hidden, the extension kept last (some libraries pick the format from
// it), the stem cut so that the name stays within NAME_MAX.
std::string sibling(const std::string& target, const char* tag) {
  static std::atomic<unsigned> counter{0};
  const fs::path p(target);
  std::string ext = p.extension().string();
  if (ext.size() > 16) ext.clear();
  std::string stem = p.filename().string();
  stem.resize(stem.size() - ext.size());
  const std::string mark = std::string(tag) + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::size_t room = NAME_MAX - 1 - mark.size() - ext.size();
  if (stem.size() > room) stem.resize(room);
  return (p.parent_path() / ("." + stem + mark + ext)).string();
}

// A file's identity: its device and inode (through symbolic links), and for an output that does not exist yet
// its folder's with its name.
struct FileKey {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;
  bool operator==(const FileKey&) const = default;
};
std::optional<FileKey> existing_key(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileKey{st.st_dev, st.st_ino, {}};
}
FileKey output_key(const std::string& path) {
  if (auto k = existing_key(path)) return *k;
  const fs::path p(path);
  FileKey k = existing_key(p.parent_path().empty() ? "." : p.parent_path().string()).value_or(FileKey{});
  k.name = p.filename().string();
  return k;
}

struct Named {
  FileKey key;
  std::string path;
};
struct Finished {
  std::string temp, target;
};
// The open transaction's bookkeeping (one per process: the CLI's command; the GUI opens none).
struct Registry {
  std::mutex m;
  bool open = false;
  std::vector<Named> inputs, expected, written;
  std::vector<Finished> finished;
};
Registry& registry() {
  static Registry r;
  return r;
}

const Named* find(const std::vector<Named>& in, const FileKey& key) {
  for (const Named& n : in)
    if (n.key == key) return &n;
  return nullptr;
}

// Claims `path` as an output in `claimed` (the outputs expected, or those being written), refusing it where it is
// an input or claimed already (`twice` says how); called with the registry locked.
void claim_output(Registry& r, std::vector<Named>& claimed, const std::string& path, const char* twice) {
  const FileKey key = output_key(path);
  if (const Named* in = find(r.inputs, key))
    throw InputError(shown(path) + ": the same file as the input " + shown(in->path) +
                     " (allowed: an output that is none of the command's inputs)");
  if (const Named* c = find(claimed, key))
    throw InputError(shown(path) + ": " + twice + " (also as " + shown(c->path) + "; allowed: every output a file of its own)");
  claimed.push_back({key, path});
}

}  // namespace

AtomicOutput::AtomicOutput(const std::string& target) : target_(target) {
  require_output_folder(target);
  Registry& r = registry();
  std::lock_guard lock(r.m);
  if (r.open) claim_output(r, r.written, target, "written twice by one command");
  temp_ = sibling(target, ".tmp");
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicOutput::commit() {
  {
    Registry& r = registry();
    std::lock_guard lock(r.m);
    if (r.open) {
      r.finished.push_back({temp_, target_});
      committed_ = true;  // the transaction removes it if the run fails
      return;
    }
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail();
  committed_ = true;
}

void AtomicOutput::fail(const std::string& reason) const {
  const int e = errno;
  const std::string why = !reason.empty() ? reason : e != 0 ? std::strerror(e) : "write failed";
  throw InputError(shown(target_) + ": cannot write (" + why + "; " + k_room + ")");
}

void AtomicOutput::write_bytes(const void* data, std::size_t size) const {
  errno = 0;
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail();
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      errno = e;
      fail();
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail();
}

OutputTransaction::OutputTransaction() {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  if (r.open) throw std::logic_error("OutputTransaction: one is open already");
  r.open = true;
}

OutputTransaction::~OutputTransaction() {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  if (!committed_)
    for (const Finished& f : r.finished) ::unlink(f.temp.c_str());
  r.finished.clear();
  r.inputs.clear();
  r.expected.clear();
  r.written.clear();
  r.open = false;
}

void OutputTransaction::protect_inputs(const std::vector<std::string>& paths) {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  for (const auto& p : paths)
    if (!p.empty())
      if (auto key = existing_key(p)) r.inputs.push_back({*key, p});
}

void OutputTransaction::expect_outputs(const std::vector<std::string>& paths) {
  for (const auto& p : paths) require_output_folder(p);
  Registry& r = registry();
  std::lock_guard lock(r.m);
  for (const auto& p : paths) claim_output(r, r.expected, p, "named twice as an output");
}

void OutputTransaction::commit() {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  // Every target but the last that exists is kept as a hard link until the last rename has succeeded, so that a
  // rename failing part-way can put back what the ones before it replaced.
  struct Renamed {
    const Finished* f;
    bool existed;
    std::string kept;
  };
  std::vector<Renamed> done;
  for (std::size_t i = 0; i < r.finished.size(); ++i) {
    const Finished& f = r.finished[i];
    struct stat st {};
    Renamed d{&f, ::lstat(f.target.c_str(), &st) == 0, {}};
    if (d.existed && i + 1 < r.finished.size()) {
      d.kept = sibling(f.target, ".old");
      if (::link(f.target.c_str(), d.kept.c_str()) != 0) d.kept.clear();  // no hard links here: not restorable
    }
    if (::rename(f.temp.c_str(), f.target.c_str()) != 0) {
      const int e = errno;
      if (!d.kept.empty()) ::unlink(d.kept.c_str());
      for (auto it = done.rbegin(); it != done.rend(); ++it) {
        if (!it->kept.empty()) ::rename(it->kept.c_str(), it->f->target.c_str());
        else if (!it->existed) ::unlink(it->f->target.c_str());
      }
      for (std::size_t j = i; j < r.finished.size(); ++j) ::unlink(r.finished[j].temp.c_str());
      const std::string target = f.target;
      r.finished.clear();
      throw InputError(shown(target) + ": cannot write (" + std::strerror(e) + "; " + k_room + ")");
    }
    done.push_back(std::move(d));
  }
  for (const Renamed& d : done)
    if (!d.kept.empty()) ::unlink(d.kept.c_str());
  r.finished.clear();
  committed_ = true;
}

void require_output_folder(const std::string& path) {
  if (path.empty()) throw InputError("an output path is empty (allowed: a file name)");
  const std::string limits = "allowed: names up to " + std::to_string(NAME_MAX) + " bytes, the path up to " +
                             std::to_string(k_max_output_path) + " bytes";
  for (std::size_t start = 0, end = 0; start <= path.size(); start = end + 1) {
    end = std::min(path.find('/', start), path.size());
    if (end - start > NAME_MAX)
      throw InputError(shown(path) + ": a name of " + std::to_string(end - start) + " bytes (" + limits + ")");
  }
  if (path.size() > k_max_output_path)
    throw InputError(shown(path) + ": a path of " + std::to_string(path.size()) + " bytes (" + limits +
                     ", so that its temporary beside it stays within PATH_MAX " + std::to_string(PATH_MAX) + ")");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(shown(path) + ": is a folder (allowed: a file name in a folder)");
    if (!S_ISREG(st.st_mode))
      throw InputError(shown(path) + ": exists and is not a regular file (allowed: a new file or a regular file to replace)");
  } else if (path.back() == '/') {
    throw InputError(shown(path) + ": names a folder (allowed: a file name in a folder)");
  }
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw InputError(shown(path) + ": output folder '" + shown(parent.string()) + "' does not exist");
  // Checked up front too, so a command refuses before its work rather than failing at the end.
  const fs::path folder = parent.empty() ? fs::path(".") : parent;
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InputError(shown(path) + ": output folder '" + shown(folder.string()) + "' is not writable");
}

}  // namespace mrwb
