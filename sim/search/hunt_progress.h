// The progress printer of a hunt (hunt.h): "hunt toy: 1200 runs, 600 runs/s, 0 failures, 2s" on
// HuntOptions::progress (stderr). On a terminal one line is rewritten in place four times a
// second; otherwise a line every 5 s. Times come from the hunt's clock callback (cli/), never
// from a clock of its own. Single-threaded.
#pragma once

#include "sim/search/hunt.h"

namespace wsim::run {

class HuntProgress {
 public:
  // `started_seconds`: the hunt's start on its elapsed-seconds clock.
  HuntProgress(const HuntOptions& options, double started_seconds);

  // Prints a line for `result` at `now_seconds` if one is due (always when `final_line`).
  void print(const HuntResult& result, double now_seconds, bool final_line);

 private:
  const HuntOptions& options_;
  double started_seconds_;
  double last_seconds_;
};

}  // namespace wsim::run
