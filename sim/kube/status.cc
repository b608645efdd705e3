// The Kubernetes reason names of the fake API server's status codes (status.h).
#include "sim/kube/status.h"

#include "sim/core/assert.h"

namespace wsim::kube {

const char* code_name(Code code) {
  switch (code) {
    case Code::kOk:
      return "ok";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kConflict:
      return "Conflict";
    case Code::kForbidden:
      return "Forbidden";
    case Code::kInvalid:
      return "Invalid";
    case Code::kGone:
      return "Gone";
    case Code::kTooManyRequests:
      return "TooManyRequests";
    case Code::kInternalError:
      return "InternalError";
    case Code::kServiceUnavailable:
      return "ServiceUnavailable";
    case Code::kTimeout:
      return "Timeout";
  }
  WSIM_ASSERT_MSG(false, "code_name: not a Code: " << static_cast<int>(code));
  return "Unknown";
}

}  // namespace wsim::kube
