// API call results. Mirrors the Kubernetes status reasons reconcilers branch on.
#pragma once

#include <string>
#include <utility>

#include "sim/core/assert.h"

namespace wsim::kube {

enum class Code {
  kOk,
  kNotFound,            // 404
  kAlreadyExists,       // 409
  kConflict,            // 409: stale resourceVersion, failed precondition, Terminating namespace
  kForbidden,           // 403: RBAC, or create in a Terminating namespace
  kInvalid,             // 422: malformed object (e.g. a changed deletionTimestamp)
  kGone,                // 410: watch expired, relist
  kTooManyRequests,     // 429: throttling
  kInternalError,       // 500
  kServiceUnavailable,  // 503
  kTimeout,             // client-side: no response (the request may or may not have been applied)
};

const char* code_name(Code code);  // "NotFound", "Conflict", ...

struct Status {
  Code code = Code::kOk;
  std::string message;

  bool ok() const { return code == Code::kOk; }
  bool is(Code c) const { return code == c; }
  static Status Ok() { return {}; }
  static Status Error(Code code, std::string message) {
    WSIM_ASSERT(code != Code::kOk);  // An error names what went wrong; Ok() is the success.
    return Status{code, std::move(message)};
  }
};

template <typename T>
struct Result {
  Status status;
  T value{};

  bool ok() const { return status.ok(); }
};

}  // namespace wsim::kube
