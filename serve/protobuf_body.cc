// Kubernetes protobuf request bodies to JSON (protobuf_body.h): the "k8s\0" envelope and the fields
// sim/kube keeps of Namespace, Pod, ConfigMap, Secret and Deployment (field numbers of k8s.io/api's
// generated.proto). Hostile input: every length is checked against the bytes left, and messages
// nest at most 16 deep; unknown fields are skipped.
#include "serve/protobuf_body.h"

#include <cstdint>
#include <vector>

namespace wsim::serve {
namespace {

enum class Type { kString, kInt, kBool, kMessage, kStringMap, kStringList, kMessageList };

struct Schema;
struct Field {
  int number;
  const char* json;
  Type type;
  const Schema* message = nullptr;
};
struct Schema {
  std::vector<Field> fields;
};

// k8s.io/apimachinery meta/v1 and k8s.io/api core/v1, apps/v1 generated.proto (subset).
const Schema kOwnerReference{{{1, "kind", Type::kString},
                              {3, "name", Type::kString},
                              {4, "uid", Type::kString},
                              {5, "apiVersion", Type::kString},
                              {6, "controller", Type::kBool},
                              {7, "blockOwnerDeletion", Type::kBool}}};
const Schema kObjectMeta{{{1, "name", Type::kString},
                          {2, "generateName", Type::kString},
                          {3, "namespace", Type::kString},
                          {5, "uid", Type::kString},
                          {6, "resourceVersion", Type::kString},
                          {11, "labels", Type::kStringMap},
                          {12, "annotations", Type::kStringMap},
                          {13, "ownerReferences", Type::kMessageList, &kOwnerReference},
                          {14, "finalizers", Type::kStringList}}};
const Schema kNamespaceSpec{{{1, "finalizers", Type::kStringList}}};
const Schema kNamespace{
    {{1, "metadata", Type::kMessage, &kObjectMeta}, {2, "spec", Type::kMessage, &kNamespaceSpec}}};
const Schema kConfigMap{
    {{1, "metadata", Type::kMessage, &kObjectMeta}, {2, "data", Type::kStringMap}}};
// Secret data are bytes: decoded raw into stringData (the codec's raw form).
const Schema kSecret{{{1, "metadata", Type::kMessage, &kObjectMeta},
                      {2, "stringData", Type::kStringMap},
                      {3, "type", Type::kString},
                      {4, "stringData", Type::kStringMap}}};
const Schema kLabelSelector{{{1, "matchLabels", Type::kStringMap}}};
const Schema kContainer{{{1, "name", Type::kString}, {2, "image", Type::kString}}};
const Schema kPodSpec{{{2, "containers", Type::kMessageList, &kContainer},
                       {3, "restartPolicy", Type::kString},
                       {4, "terminationGracePeriodSeconds", Type::kInt},
                       {7, "nodeSelector", Type::kStringMap},
                       {10, "nodeName", Type::kString}}};
const Schema kPod{
    {{1, "metadata", Type::kMessage, &kObjectMeta}, {2, "spec", Type::kMessage, &kPodSpec}}};
const Schema kPodTemplateSpec{
    {{1, "metadata", Type::kMessage, &kObjectMeta}, {2, "spec", Type::kMessage, &kPodSpec}}};
const Schema kDeploymentSpec{{{1, "replicas", Type::kInt},
                              {2, "selector", Type::kMessage, &kLabelSelector},
                              {3, "template", Type::kMessage, &kPodTemplateSpec}}};
const Schema kDeployment{
    {{1, "metadata", Type::kMessage, &kObjectMeta}, {2, "spec", Type::kMessage, &kDeploymentSpec}}};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : data_(bytes), at_(0) {}
  bool done() const { return at_ >= data_.size(); }
  bool varint(std::uint64_t& out) {
    out = 0;
    for (int shift = 0; shift < 64 && at_ < data_.size(); shift += 7) {
      const auto byte = static_cast<unsigned char>(data_[at_++]);
      out |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool bytes(std::string& out) {
    std::uint64_t size = 0;
    if (!varint(size) || size > data_.size() - at_) return false;
    out = data_.substr(at_, size);
    at_ += size;
    return true;
  }
  bool skip(int wire_type) {
    std::uint64_t ignored = 0;
    std::string ignored_bytes;
    switch (wire_type) {
      case 0:
        return varint(ignored);
      case 1:
        return (at_ += 8) <= data_.size();
      case 2:
        return bytes(ignored_bytes);
      case 5:
        return (at_ += 4) <= data_.size();
      default:
        return false;
    }
  }

 private:
  const std::string& data_;
  std::size_t at_;
};

bool decode(const std::string& bytes, const Schema& schema, Json& out, int depth);

bool decode_entry(const std::string& bytes, std::string& key, std::string& value) {
  Reader reader(bytes);
  while (!reader.done()) {
    std::uint64_t tag = 0;
    if (!reader.varint(tag)) return false;
    if ((tag & 7) != 2) {
      if (!reader.skip(static_cast<int>(tag & 7))) return false;
      continue;
    }
    std::string text;
    if (!reader.bytes(text)) return false;
    if ((tag >> 3) == 1) key = text;
    if ((tag >> 3) == 2) value = text;
  }
  return true;
}

bool decode_field(Reader& reader, const Field& field, int wire_type, Json& out, int depth) {
  if (field.type == Type::kInt || field.type == Type::kBool) {
    std::uint64_t value = 0;
    if (wire_type != 0 || !reader.varint(value)) return false;
    if (field.type == Type::kBool) {
      out[field.json] = value != 0;
    } else {
      out[field.json] = static_cast<std::int64_t>(static_cast<std::int32_t>(value));
    }
    return true;
  }
  std::string bytes;
  if (wire_type != 2 || !reader.bytes(bytes)) return false;
  switch (field.type) {
    case Type::kString:
      out[field.json] = bytes;
      return true;
    case Type::kStringList:
      out[field.json].push_back(bytes);
      return true;
    case Type::kStringMap: {
      std::string key, value;
      if (!decode_entry(bytes, key, value)) return false;
      out[field.json][key] = value;
      return true;
    }
    case Type::kMessage:
      return decode(bytes, *field.message, out[field.json], depth + 1);
    case Type::kMessageList: {
      Json item = Json::object();
      if (!decode(bytes, *field.message, item, depth + 1)) return false;
      out[field.json].push_back(item);
      return true;
    }
    default:
      return false;
  }
}

bool decode(const std::string& bytes, const Schema& schema, Json& out, int depth) {
  if (depth > 16) return false;
  if (!out.is_object()) out = Json::object();
  Reader reader(bytes);
  while (!reader.done()) {
    std::uint64_t tag = 0;
    if (!reader.varint(tag)) return false;
    const int number = static_cast<int>(tag >> 3);
    const int wire_type = static_cast<int>(tag & 7);
    const Field* field = nullptr;
    for (const Field& f : schema.fields) {
      if (f.number == number) field = &f;
    }
    const bool ok =
        field ? decode_field(reader, *field, wire_type, out, depth) : reader.skip(wire_type);
    if (!ok) return false;
  }
  return true;
}

const Schema* schema_of(const std::string& kind) {
  if (kind == "Namespace") return &kNamespace;
  if (kind == "ConfigMap") return &kConfigMap;
  if (kind == "Secret") return &kSecret;
  if (kind == "Deployment") return &kDeployment;
  if (kind == "Pod") return &kPod;
  return nullptr;
}

}  // namespace

bool protobuf_to_json(const std::string& body, Json& out, std::string& error) {
  static const std::string kMagic("k8s\0", 4);
  Json envelope;
  const Schema type_meta{{{1, "apiVersion", Type::kString}, {2, "kind", Type::kString}}};
  const Field raw_field{2, "raw", Type::kString};
  const Schema unknown{{{1, "typeMeta", Type::kMessage, &type_meta}, raw_field}};
  if (body.compare(0, 4, kMagic) != 0 || !decode(body.substr(4), unknown, envelope, 0)) {
    error = "body: not a Kubernetes protobuf envelope";
    return false;
  }
  // An envelope without typeMeta (serve_http_fuzz found one): value() on null would throw.
  if (!envelope["typeMeta"].is_object()) envelope["typeMeta"] = Json::object();
  const std::string kind = envelope["typeMeta"].value("kind", std::string());
  const Schema* schema = schema_of(kind);
  if (schema == nullptr) {
    error =
        "protobuf bodies of kind \"" + kind +
        "\" are not supported (Namespace, Pod, ConfigMap, Secret and Deployment are): send JSON";
    return false;
  }
  out = Json::object();
  if (!decode(envelope.value("raw", std::string()), *schema, out, 0)) {
    error = "body: malformed protobuf " + kind;
    return false;
  }
  out["kind"] = kind;
  out["apiVersion"] = envelope["typeMeta"].value("apiVersion", std::string());
  return true;
}

}  // namespace wsim::serve
