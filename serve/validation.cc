// Request validation before storage (validation.h): object names (DNS-1123 / DNS-1035, worded as
// apimachinery's validation.go@v0.32, cited below) and the int32/int64 fields of the apps and pod
// kinds (the decoder's 400 or a 422). The list of what is and is not checked is in validation.h.
#include "serve/validation.h"

#include <limits>

namespace wsim::serve {
namespace {

// apimachinery pkg/util/validation/validation.go @ v0.32 (IsDNS1123Label, IsDNS1123Subdomain,
// IsDNS1035Label, MaxLenError, RegexError): the messages below are its wording.
constexpr const char* kDns1123LabelMessage =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kDns1123SubdomainMessage =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kDns1035LabelMessage =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool is_label(const std::string& text, std::size_t begin, std::size_t end) {
  if (begin >= end) return false;
  if (!lower_alnum(text[begin]) || !lower_alnum(text[end - 1])) return false;
  for (std::size_t i = begin; i < end; ++i) {
    if (!lower_alnum(text[i]) && text[i] != '-') return false;
  }
  return true;
}

bool is_subdomain(const std::string& text) {
  std::size_t begin = 0;
  for (;;) {
    const std::size_t dot = text.find('.', begin);
    const std::size_t end = dot == std::string::npos ? text.size() : dot;
    if (!is_label(text, begin, end)) return false;
    if (dot == std::string::npos) return true;
    begin = dot + 1;
  }
}

std::string max_len(std::size_t n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

// Go's %q of a string, near enough: quotes and backslashes escaped, control bytes as \xNN.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

struct IntField {
  const char* key;  // Below "spec".
  const char* field;
  const char* go_field;  // "DeploymentSpec.spec.replicas" for the decoder's message.
  bool int32;
};

const std::vector<IntField>& int_fields(const std::string& kind) {
  static const std::vector<IntField> deployment = {
      {"replicas", "spec.replicas", "DeploymentSpec.spec.replicas", true},
      {"minReadySeconds", "spec.minReadySeconds", "DeploymentSpec.spec.minReadySeconds", true},
      {"revisionHistoryLimit", "spec.revisionHistoryLimit",
       "DeploymentSpec.spec.revisionHistoryLimit", true},
      {"progressDeadlineSeconds", "spec.progressDeadlineSeconds",
       "DeploymentSpec.spec.progressDeadlineSeconds", true}};
  static const std::vector<IntField> replica_set = {
      {"replicas", "spec.replicas", "ReplicaSetSpec.spec.replicas", true},
      {"minReadySeconds", "spec.minReadySeconds", "ReplicaSetSpec.spec.minReadySeconds", true}};
  static const std::vector<IntField> pod = {{"terminationGracePeriodSeconds",
                                             "spec.terminationGracePeriodSeconds",
                                             "PodSpec.spec.terminationGracePeriodSeconds", false}};
  static const std::vector<IntField> none;
  if (kind == "Deployment") return deployment;
  if (kind == "ReplicaSet") return replica_set;
  if (kind == "Pod") return pod;
  return none;
}

// encoding/json's names of a JSON value's type in "cannot unmarshal X into ...".
std::string json_type_name(const Json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "bool";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "number " + value.dump();
}

Invalid invalid_name(const Resource& resource, const std::string& name, const std::string& why) {
  Invalid out;
  out.code = 422;
  out.field = "metadata.name";
  out.cause = "Invalid value: " + quoted(name) + ": " + why;
  out.message =
      qualified_kind(resource) + " " + quoted(name) + " is invalid: metadata.name: " + out.cause;
  return out;
}

Invalid check_int(Json& body, const Resource& resource, const IntField& f,
                  const std::string& name) {
  Invalid out;
  auto spec = body.find("spec");
  if (spec == body.end() || !spec->is_object()) return out;
  auto found = spec->find(f.key);
  if (found == spec->end() || found->is_null()) return out;
  Json& value = *found;
  const std::int64_t low =
      f.int32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  const std::int64_t high =
      f.int32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  const bool integral = value.is_number_integer() &&
                        !(value.is_number_unsigned() &&
                          value.get<std::uint64_t>() >
                              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!integral || value.get<std::int64_t>() < low || value.get<std::int64_t>() > high) {
    out.code = 400;
    out.field = f.field;
    out.message = resource.kind + " in version \"" + resource.version +
                  "\" cannot be handled as a " + resource.kind + ": json: cannot unmarshal " +
                  json_type_name(value) + " into Go struct field " + f.go_field + " of type " +
                  (f.int32 ? "int32" : "int64");
    return out;
  }
  const std::int64_t v = value.get<std::int64_t>();
  if (v < 0) {
    out.code = 422;
    out.field = f.field;
    out.cause = "Invalid value: " + std::to_string(v) + ": must be greater than or equal to 0";
    out.message = qualified_kind(resource) + " " + quoted(name) + " is invalid: " + f.field + ": " +
                  out.cause;
    return out;
  }
  if (!f.int32 && v > kGraceSecondsMax) value = kGraceSecondsMax;
  return out;
}

}  // namespace

std::string qualified_kind(const Resource& resource) {
  return resource.group.empty() ? resource.kind : resource.kind + "." + resource.group;
}

std::string name_problems(const std::string& kind, const std::string& name) {
  std::vector<std::string> problems;
  if (kind == "Namespace") {
    if (name.size() > 63) problems.push_back(max_len(63));
    if (!is_label(name, 0, name.size())) problems.push_back(kDns1123LabelMessage);
  } else if (kind == "Service") {
    if (name.size() > 63) problems.push_back(max_len(63));
    const bool alpha_first = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
    if (!alpha_first || !is_label(name, 0, name.size())) problems.push_back(kDns1035LabelMessage);
  } else {
    if (name.size() > 253) problems.push_back(max_len(253));
    if (!is_subdomain(name)) problems.push_back(kDns1123SubdomainMessage);
  }
  std::string out;
  for (const std::string& p : problems) out += (out.empty() ? "" : ", ") + p;
  return out;
}

Invalid validate_object(Json& body, const Resource& resource) {
  Invalid out;
  if (!body.is_object()) return out;  // The codec refuses it, naming the problem.
  const Json* meta = body.contains("metadata") ? &body["metadata"] : nullptr;
  const Json* name_value =
      meta && meta->is_object() && meta->contains("name") ? &(*meta)["name"] : nullptr;
  if (name_value == nullptr || !name_value->is_string() || name_value->get<std::string>().empty()) {
    if (name_value != nullptr && !name_value->is_string()) return out;  // The codec's error.
    out.code = 422;
    out.field = "metadata.name";
    out.cause = "Required value: name or generateName is required";
    out.message = qualified_kind(resource) + " \"\" is invalid: metadata.name: " + out.cause;
    return out;
  }
  const std::string name = name_value->get<std::string>();
  const std::string problems = name_problems(resource.kind, name);
  if (!problems.empty()) return invalid_name(resource, name, problems);
  for (const IntField& field : int_fields(resource.kind)) {
    out = check_int(body, resource, field, name);
    if (out.code != 0) return out;
  }
  return out;
}

}  // namespace wsim::serve
