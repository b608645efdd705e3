// shell_quote.h: the one quoting rule of every repro command wsim prints.
#include "sim/run/shell_quote.h"

#include <algorithm>

namespace wsim::run {

std::string shell_quote(const std::string& text) {
  const bool safe = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '/' || c == '=' || c == ':' || c == ',' || c == '+' ||
           c == '@';
  });
  if (safe) return text;
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace wsim::run
