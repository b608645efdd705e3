// Not a port: see manager.h [invented].
#include "model/gitpod/world/manager.h"

#include "sim/core/assert.h"

namespace wsim::gitpod {

const char* stop_policy_name(StopPolicy policy) {
  switch (policy) {
    case StopPolicy::kNormal:
      return "normal";
    case StopPolicy::kImmediate:
      return "immediate";
    case StopPolicy::kAbort:
      return "abort";
  }
  WSIM_ASSERT_MSG(false, "stop policy " << static_cast<int>(policy) << " has no name");
  return "?";
}

const char* api_code_name(ApiCode code) {
  switch (code) {
    case ApiCode::kOk:
      return "OK";
    case ApiCode::kAlreadyExists:
      return "AlreadyExists";
    case ApiCode::kFailedPrecondition:
      return "FailedPrecondition";
    case ApiCode::kNotFound:
      return "NotFound";
    case ApiCode::kUnavailable:
      return "Unavailable";
    case ApiCode::kInternal:
      return "Internal";
  }
  WSIM_ASSERT_MSG(false, "API code " << static_cast<int>(code) << " has no name");
  return "?";
}

}  // namespace wsim::gitpod
