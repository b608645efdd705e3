// Files the run layer publishes (failure bundles, regression corpus files) are written so that a
// reader never sees a half-written one, even after a crash or a full disk: the bytes go to a
// temporary file in the same directory, are fsync'ed, and only then get the final name.
//
// Single-threaded use; safe against other processes writing the same path (kRefuse: exactly one
// of two concurrent writers wins). Not modelled: directories on a different file system than
// their temporary file (never the case: the temporary file is a sibling).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace wsim::run {

enum class ExistingFile {
  kReplace,  // rename() over it: readers see the old or the new content, never a mix.
  kRefuse,   // link(): fails with an error naming the path if it exists (or appears meanwhile).
};

// Writes `bytes` to `path` atomically (see above). REQUIRES: path has a file name and its
// directory exists. Returns false with `error` naming the path and the system error; no
// temporary file is left behind then.
[[nodiscard]] bool atomic_write_file(const std::filesystem::path& path, std::string_view bytes,
                                     ExistingFile existing, std::string& error);

// fsyncs a directory so that a rename into it survives a crash (best effort: errors ignored).
void sync_directory(const std::filesystem::path& dir);

}  // namespace wsim::run
