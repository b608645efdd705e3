// Quoting for the repro commands wsim prints (`scripts/wsim replay DIR`, `scripts/wsim run ...`):
// a word a POSIX shell reads back as the same single argument.
#pragma once

#include <string>

namespace wsim::run {

// `text` unchanged when it has only characters a shell leaves alone, else single-quoted with
// embedded quotes escaped ('\''). An empty text becomes ''.
std::string shell_quote(const std::string& text);

}  // namespace wsim::run
