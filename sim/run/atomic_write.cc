// Writing a file atomically (atomic_write.h): a temporary file fsynced, then renamed or linked
// into place, then the directory fsynced.
#include "sim/run/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "sim/core/assert.h"

namespace wsim::run {

namespace fs = std::filesystem;

namespace {

// Writes all of `bytes` to the new file `path` and fsyncs it.
bool write_and_sync(const fs::path& path, std::string_view bytes, std::string& error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path.string() + ": cannot create: " + std::strerror(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = path.string() + ": write failed: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  WSIM_ASSERT_EQ(done, bytes.size());
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = path.string() + ": cannot flush: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool atomic_write_file(const fs::path& path, std::string_view bytes, ExistingFile existing,
                       std::string& error) {
  WSIM_ASSERT(path.has_filename());
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp");
  std::error_code ec;
  if (!write_and_sync(tmp, bytes, error)) {
    fs::remove(tmp, ec);
    return false;
  }
  if (existing == ExistingFile::kReplace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      error = path.string() + ": cannot rename into place: " + std::strerror(errno);
      fs::remove(tmp, ec);
      return false;
    }
    return true;
  }
  // link() fails if the target exists, so two concurrent writers cannot overwrite each other.
  if (::link(tmp.c_str(), path.c_str()) != 0) {
    error = path.string() + (errno == EEXIST ? ": already exists" : ": cannot create: ") +
            (errno == EEXIST ? "" : std::strerror(errno));
    fs::remove(tmp, ec);
    return false;
  }
  fs::remove(tmp, ec);
  return true;
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace wsim::run
