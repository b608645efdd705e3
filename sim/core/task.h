// Task<T>: a lazily started C++20 coroutine returning T, awaited with `co_await`.
//
// Reconcilers are written as straight-line coroutines. Awaiting a Task starts it and resumes the
// awaiter when it finishes (symmetric transfer, so deep chains do not grow the native stack).
// Exceptions propagate to the awaiter. A Task owns its frame. Root tasks are handed to
// EventLoop::spawn, which turns them into actors; every suspension point inside an actor is an
// interleaving point of the simulation (docs/architecture.md §2).
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <utility>

#include "sim/core/assert.h"
#include "sim/core/frame_pool.h"

namespace wsim {

// Thrown at the interleaving point of an actor that was cancelled (agent restart, component
// crash). It unwinds the actor's coroutine chain; EventLoop swallows it at the root. It is not a
// std::exception so that `catch (const std::exception&)` in model code does not swallow it.
struct Cancelled {};

namespace task_detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> done) noexcept {
      WSIM_ASSERT(done.done());  // Suspended at its final point: its body has ended.
      std::coroutine_handle<> next = done.promise().continuation;
      return next ? next : std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() {
    WSIM_ASSERT(!error);  // A body ends once: at most one exception escapes it.
    error = std::current_exception();
  }

  // Every Task's frame comes from the frame pool (frame_pool.h): freed frames are reused, most
  // recently freed first, instead of a malloc and a free per coroutine call.
  static void* operator new(std::size_t size) { return frame_pool::allocate(size); }
  static void operator delete(void* frame, std::size_t size) noexcept {
    frame_pool::release(frame, size);
  }
};

}  // namespace task_detail

template <typename T = void>
class [[nodiscard]] Task {
 public:
  struct promise_type : task_detail::PromiseBase {
    std::optional<T> value;
    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    template <typename U>
    void return_value(U&& result) {
      WSIM_ASSERT(!value.has_value());  // co_return runs once per frame.
      value.emplace(std::forward<U>(result));
    }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    // One owner per frame: two Tasks holding one handle would destroy it twice.
    if (this != &other && handle_) WSIM_ASSERT(handle_ != other.handle_);
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // REQUIRES: a Task that holds a frame (not moved from) and has not run yet: a Task is awaited
  // once.
  auto operator co_await() && noexcept {
    WSIM_ASSERT(handle_);
    WSIM_ASSERT(!handle_.done());
    struct Awaiter {
      Handle handle;
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
        WSIM_ASSERT(!handle.promise().continuation);  // Awaited by one frame only.
        handle.promise().continuation = awaiter;
        return handle;
      }
      T await_resume() {
        WSIM_ASSERT(handle.done());  // Resumed by its child's final suspend, never before.
        if (handle.promise().error) std::rethrow_exception(handle.promise().error);
        // A body that fell off its end without co_return (undefined behaviour) lands here.
        WSIM_ASSERT(handle.promise().value.has_value());
        return std::move(*handle.promise().value);
      }
    };
    return Awaiter{handle_};
  }

  Handle handle() const { return handle_; }

 private:
  explicit Task(Handle handle) : handle_(handle) {}
  Handle handle_;
};

template <>
class [[nodiscard]] Task<void> {
 public:
  struct promise_type : task_detail::PromiseBase {
    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    void return_void() {}
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    // One owner per frame: two Tasks holding one handle would destroy it twice.
    if (this != &other && handle_) WSIM_ASSERT(handle_ != other.handle_);
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // REQUIRES: a Task that holds a frame (not moved from) and has not run yet: a Task is awaited
  // once.
  auto operator co_await() && noexcept {
    WSIM_ASSERT(handle_);
    WSIM_ASSERT(!handle_.done());
    struct Awaiter {
      Handle handle;
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
        WSIM_ASSERT(!handle.promise().continuation);  // Awaited by one frame only.
        handle.promise().continuation = awaiter;
        return handle;
      }
      void await_resume() {
        WSIM_ASSERT(handle.done());  // Resumed by its child's final suspend, never before.
        if (handle.promise().error) std::rethrow_exception(handle.promise().error);
      }
    };
    return Awaiter{handle_};
  }

  Handle handle() const { return handle_; }
  bool done() const { return handle_ && handle_.done(); }

 private:
  explicit Task(Handle handle) : handle_(handle) {}
  Handle handle_;
};

}  // namespace wsim
