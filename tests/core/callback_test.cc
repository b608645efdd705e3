// Callback (sim/core/callback.h) and the frame pool (sim/core/frame_pool.h): the two allocation
// savers of docs/performance.md §11 must behave like std::function and like operator new.
#include "sim/core/callback.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/event_loop.h"
#include "sim/core/frame_pool.h"

namespace wsim {
namespace {

TEST(Callback, RunsSmallAndLargeCapturesAndDestroysThemOnce) {
  auto token = std::make_shared<int>(0);
  std::string log;
  {
    const std::string small = "small";
    std::array<char, 200> big{};
    big[0] = 'B';
    Callback a = [token, small, &log] { log += small; };
    Callback b = [token, big, &log] { log += big[0]; };
    EXPECT_EQ(token.use_count(), 3);
    Callback moved = std::move(b);  // b is empty now; moved owns the heap capture.
    EXPECT_TRUE(b == nullptr);
    EXPECT_FALSE(moved == nullptr);
    a();
    moved();
    std::vector<Callback> slots;
    slots.push_back(std::move(a));
    slots.emplace_back(std::function<void()>([&log] { log += "F"; }));
    for (int i = 0; i < 40; ++i) slots.emplace_back([token] {});  // Growth moves them.
    slots[0]();
    slots[1]();
    slots[0] = nullptr;
    EXPECT_EQ(token.use_count(), 2 + 40);
  }
  EXPECT_EQ(log, "smallBsmallF");
  EXPECT_EQ(token.use_count(), 1);  // Every capture destroyed exactly once.
  struct Big {
    std::array<char, 200> bytes;
    void operator()() {}
  };
  struct Small {
    std::string a, b;
    void* p;
    void operator()() {}
  };
  static_assert(!Callback::fits_inline<Big>());
  static_assert(Callback::fits_inline<Small>());
}

TEST(Callback, EventLoopRunsScheduledCallbacksInOrder) {
  EventLoop loop;
  std::vector<std::string> log;
  const std::string name = "a-name-longer-than-fifteen-bytes";
  loop.schedule(5, [&log, name] { log.push_back(name + "@5"); });
  loop.schedule(1, [&log, &loop] {
    log.push_back("1");
    loop.schedule(0, [&log] { log.push_back("1+0"); });
  });
  loop.run_until_idle(100);
  EXPECT_EQ(log, (std::vector<std::string>{"1", "1+0", name + "@5"}));
}

TEST(FramePool, ReusesTheLastFreedFrameOfTheSameClass) {
  void* a = frame_pool::allocate(100);
  void* b = frame_pool::allocate(120);  // Same 64-byte class (65..128).
  ASSERT_NE(a, nullptr);
  ASSERT_NE(a, b);
  frame_pool::release(a, 100);
  frame_pool::release(b, 120);
#if !defined(__SANITIZE_ADDRESS__)
  void* c = frame_pool::allocate(70);
  void* d = frame_pool::allocate(128);
  EXPECT_EQ(c, b);  // Most recently freed first.
  EXPECT_EQ(d, a);
  frame_pool::release(c, 70);
  frame_pool::release(d, 128);
#else
  frame_pool::release(frame_pool::allocate(70), 70);  // Pool off under ASan: plain new/delete.
#endif
  void* huge = frame_pool::allocate(frame_pool::kMaxPooledBytes + 1);
  frame_pool::release(huge, frame_pool::kMaxPooledBytes + 1);
}

}  // namespace
}  // namespace wsim
