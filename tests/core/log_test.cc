// The virtual-time log (sim/core/log.h): off by default, every line stamped with the virtual
// time, levels by name.
#include "sim/core/log.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/assert.h"

namespace wsim {
namespace {

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { set_log_stream(out_); }
  void TearDown() override {
    ASSERT_TRUE(set_log_level("off"));
    set_log_stream(std::cerr);
    assert_context().now_ms = 0;
  }
  std::ostringstream out_;
};

TEST_F(LogTest, OffByDefaultAndWhenOff) {
  WSIM_LOG_WARN("never printed " << 1);
  EXPECT_EQ(out_.str(), "");
}

TEST_F(LogTest, LinesCarryTheVirtualTimeAndTheLevel) {
  ASSERT_TRUE(set_log_level("debug"));
  assert_context().now_ms = 90'061;
  WSIM_LOG_DEBUG("kubelet/"
                 << "node-0"
                 << ": "
                 << "Pending -> Running");
  assert_context().now_ms = 7;
  WSIM_LOG_INFO("second");
  EXPECT_EQ(out_.str(),
            "[t=90.061s] [debug] kubelet/node-0: Pending -> Running\n[t=0.007s] [info] second\n");
}

TEST_F(LogTest, LevelsFilterAndUnknownNamesAreRefused) {
  ASSERT_TRUE(set_log_level("warn"));
  WSIM_LOG_DEBUG("hidden");
  WSIM_LOG_WARN("shown");
  EXPECT_EQ(out_.str(), "[t=0.000s] [warning] shown\n");
  EXPECT_FALSE(set_log_level("verbose"));
  EXPECT_FALSE(set_log_level(""));
}

}  // namespace
}  // namespace wsim
