// What ran as the external reconciler (external_record.h): the command recorded in a scenario, its
// FNV-1a 64 digest (argv, workdir, and the files argv names, each read up to kDigestFileBytesMax),
// and the warning when a replay's command is not the recorded one. [invented]
#include "serve/external_record.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/run/duration.h"
#include "sim/run/shell_quote.h"

namespace wsim::serve {
namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

void mix(std::uint64_t& hash, const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= kFnvPrime;
  }
}

void mix_text(std::uint64_t& hash, const std::string& text) {
  const std::string length = std::to_string(text.size()) + ":";
  mix(hash, length.data(), length.size());
  mix(hash, text.data(), text.size());
}

// Mixes in the bytes of `path` (at most kDigestFileBytesMax) when it is a regular file.
void mix_file(std::uint64_t& hash, const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::ifstream in(path, std::ios::binary);
  char buffer[65536];
  std::size_t total = 0;
  mix_text(hash, "file");
  while (in && total < kDigestFileBytesMax) {
    in.read(buffer,
            static_cast<std::streamsize>(std::min(sizeof buffer, kDigestFileBytesMax - total)));
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    mix(hash, buffer, n);
    total += n;
  }
}

// argv[0] without a slash, as execvp finds it through PATH; empty when not found.
std::string resolve_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr || name.empty() || name.find('/') != std::string::npos) return "";
  const std::string dirs = path;
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    std::size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    const std::filesystem::path candidate =
        std::filesystem::path(end == begin ? "." : dirs.substr(begin, end - begin)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    begin = end + 1;
  }
  return "";
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + run::shell_quote(arg);
  return text;
}

}  // namespace

std::string command_digest(const std::vector<std::string>& argv, const std::string& workdir) {
  std::uint64_t hash = kFnvOffset;
  mix_text(hash, workdir);
  for (std::size_t i = 0; i < argv.size(); ++i) {
    mix_text(hash, argv[i]);
    if (i == 0) {
      const std::string found = resolve_in_path(argv[0]);
      if (!found.empty()) {
        std::error_code ec;
        mix_text(hash, found + " " + std::to_string(std::filesystem::file_size(found, ec)));
        continue;
      }
    }
    const std::filesystem::path path(argv[i]);
    mix_file(hash, path.is_absolute() ? path : std::filesystem::path(workdir) / path);
  }
  return "fnv1a64:" + run::format_hash(hash);
}

std::string current_workdir() {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? std::string() : cwd.string();
}

void record_command(proto::Scenario& scenario, const std::vector<std::string>& argv,
                    VclockMode vclock) {
  proto::ExternalConfig* config = scenario.mutable_external();
  config->set_vclock(vclock_mode_name(vclock));
  config->clear_command();
  for (const std::string& arg : argv) config->add_command(arg);
  config->set_workdir(current_workdir());
  config->set_digest(command_digest(argv, config->workdir()));
}

std::string describe_recorded_command(const proto::ExternalConfig& config) {
  if (config.command().empty()) {
    return "external process: not recorded (a bundle written before wsim recorded COMMAND, or a "
           "process started by hand)\n";
  }
  const std::vector<std::string> argv(config.command().begin(), config.command().end());
  const std::string clock = config.vclock().empty()
                                ? std::string("not recorded (next-event, the default then)")
                                : config.vclock();
  return "external process: " + command_text(argv) + "\n  workdir: " + config.workdir() +
         "\n  digest: " + config.digest() + "\n  clock: " + clock + "\n";
}

std::string compare_with_recorded(const proto::ExternalConfig& config,
                                  const std::vector<std::string>& argv) {
  if (config.digest().empty()) return "note: the bundle recorded no COMMAND to compare with\n";
  const std::string digest = command_digest(argv, current_workdir());
  if (digest == config.digest()) return "";
  const std::vector<std::string> recorded(config.command().begin(), config.command().end());
  return "warning: COMMAND differs from the one recorded (digest " + digest + ", recorded " +
         config.digest() + ": " + command_text(recorded) + " in " + config.workdir() + ")\n";
}

}  // namespace wsim::serve
