// issue #32 item 1: no request ends or freezes `wsim serve`. Each test sends what the issue's
// "One request kills or freezes it" list sends (over a raw socket, so that malformed and
// oversized requests reach the server as written) and checks a clear 4xx/5xx Status instead.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/codec.h"
#include "serve/http.h"
#include "serve/server.h"
#include "sim/core/choice.h"
#include "sim/kube/cluster.h"

namespace wsim::serve {
namespace {

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, kLoopback, &address.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

struct Reply {
  int status = 0;
  std::string head;
  std::string body;
  Json json() const { return Json::parse(body, nullptr, false); }
};

// Reads one response (Content-Length framing, or until close); bounded by `timeout_ms`. With
// `carry`, bytes past the response (the next pipelined response, read in the same recv) are kept
// there for the next call instead of dropped.
Reply read_reply(int fd, int timeout_ms = 10000, std::string* carry = nullptr) {
  Reply reply;
  std::string data;
  if (carry != nullptr) data.swap(*carry);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::size_t want = std::string::npos;
  for (;;) {
    const std::size_t end = data.find("\r\n\r\n");
    if (end != std::string::npos && want == std::string::npos) {
      reply.head = data.substr(0, end);
      const std::size_t cl = reply.head.find("Content-Length: ");
      if (cl != std::string::npos) want = end + 4 + std::stoul(reply.head.substr(cl + 16));
    }
    if (want != std::string::npos && data.size() >= want) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    char buffer[65536];
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    data.append(buffer, static_cast<std::size_t>(n));
  }
  if (carry != nullptr && want != std::string::npos && data.size() > want) {
    *carry = data.substr(want);
    data.resize(want);
  }
  if (data.rfind("HTTP/1.1 ", 0) == 0) reply.status = std::stoi(data.substr(9, 3));
  const std::size_t end = data.find("\r\n\r\n");
  if (end != std::string::npos) reply.body = data.substr(end + 4);
  return reply;
}

std::string request(const std::string& method, const std::string& path,
                    const std::string& body = "", const std::string& type = "application/json") {
  std::string text = method + " " + path + " HTTP/1.1\r\nHost: t\r\n";
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    text += "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return text + "\r\n" + body;
}

class ServeRobust : public ::testing::Test {
 protected:
  void SetUp() override { start(ServerOptions{}); }
  void TearDown() override { stop(); }

  void start(ServerOptions options) {
    sim_ = std::make_unique<Sim>(ChoiceSource::from_seed(1));
    kube::ClusterOptions cluster_options;
    cluster_options.api.default_fault_rules = false;
    cluster_ = std::make_unique<kube::Cluster>(*sim_, cluster_options);
    cluster_->start();
    world_ = std::make_unique<World>(*sim_, cluster_->api(), 10000);
    server_ = std::make_unique<Server>(*world_, options);
    std::string error;
    port_ = server_->bind(error);
    ASSERT_GT(port_, 0) << error;
    thread_ = std::thread([this] { server_->run(); });
  }
  void stop() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    world_.reset();
    cluster_.reset();
    sim_.reset();
  }

  // One request on a new connection.
  Reply call(const std::string& text, int timeout_ms = 10000) {
    const int fd = connect_to(port_);
    EXPECT_GE(fd, 0);
    send_all(fd, text);
    Reply reply = read_reply(fd, timeout_ms);
    ::close(fd);
    return reply;
  }
  Reply call(const std::string& method, const std::string& path, const std::string& body = "",
             const std::string& type = "application/json") {
    return call(request(method, path, body, type));
  }
  // The server still answers.
  void expect_alive() { EXPECT_EQ(call("GET", "/version").status, 200); }
  // A failure as a metav1.Status with `code` and `reason`.
  void expect_status(const Reply& reply, int code, const std::string& reason) {
    EXPECT_EQ(reply.status, code) << reply.body;
    const Json doc = reply.json();
    ASSERT_TRUE(doc.is_object()) << reply.body;
    EXPECT_EQ(doc.value("kind", ""), "Status") << reply.body;
    EXPECT_EQ(doc.value("code", 0), code) << reply.body;
    EXPECT_EQ(doc.value("reason", ""), reason) << reply.body;
  }
  std::string configmap(const std::string& name) {
    return Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}}.dump(
        -1, ' ', false, Json::error_handler_t::replace);
  }
  std::string deployment(const Json& replicas) {
    return Json{{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", "web"}}},
                {"spec",
                 {{"replicas", replicas},
                  {"selector", {{"matchLabels", {{"app", "web"}}}}},
                  {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}}}}}
        .dump();
  }

  std::unique_ptr<Sim> sim_;
  std::unique_ptr<kube::Cluster> cluster_;
  std::unique_ptr<World> world_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = -1;
};

TEST_F(ServeRobust, InvalidUtf8InThePathIsNotFoundNotACrash) {
  const Reply root = call("GET", "/%FF");
  expect_status(root, 404, "NotFound");
  EXPECT_TRUE(http::valid_utf8(root.body));
  expect_status(call("GET", std::string(kConfigMaps) + "/caf%E9"), 404, "NotFound");
  expect_alive();
}

// Found by serve_http_fuzz (2026-11-29, 56 k executions): a server-side apply with a YAML body
// holding a byte that is not UTF-8 made a handler throw (500) when the object was printed.
TEST_F(ServeRobust, ApplyYamlWithInvalidUtf8IsABadRequest) {
  const std::string path = std::string(kConfigMaps) + "/cm1?fieldManager=kubectl&force=false";
  const std::string yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  k: \"a\xfd\"\n";
  const Reply reply = call("PATCH", path, yaml, "application/apply-patch+yaml");
  expect_status(reply, 400, "BadRequest");
  EXPECT_NE(reply.body.find("invalid UTF-8"), std::string::npos) << reply.body;
  EXPECT_TRUE(http::valid_utf8(reply.body));
  // The same document in valid UTF-8 is applied.
  const std::string ok =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  k: \"caf\xc3\xa9\"\n";
  EXPECT_EQ(call("PATCH", path, ok, "application/apply-patch+yaml").status, 201);
  expect_alive();
}

TEST_F(ServeRobust, DeeplyNestedJsonIsRefusedBeforeParsing) {
  const std::string deep = "{\"x\":" + std::string(20000, '[') + std::string(20000, ']') + "}";
  expect_status(call("POST", kConfigMaps, deep), 400, "BadRequest");
  ASSERT_EQ(call("POST", kConfigMaps, configmap("c")).status, 201);
  std::string patch = "{\"data\":";
  for (int i = 0; i < 100000; ++i) patch += "{\"a\":";
  patch += "1" + std::string(100000, '}') + "}";
  expect_status(
      call("PATCH", std::string(kConfigMaps) + "/c", patch, "application/merge-patch+json"), 400,
      "BadRequest");
  // Within the bound (1000) a body is served: a pod template's spec 900 deep.
  std::string nested;
  for (int i = 0; i < 900; ++i) nested += "{\"a\":";
  nested += "1" + std::string(900, '}');
  const std::string ok_body =
      "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},"
      "\"spec\":{\"replicas\":0,\"template\":{\"spec\":{\"x\":" +
      nested + "}}}}";
  const Reply created = call("POST", "/apis/apps/v1/namespaces/default/deployments", ok_body);
  EXPECT_EQ(created.status, 201) << created.body.substr(0, 300);
  expect_alive();
}

TEST_F(ServeRobust, HugeGracePeriodsAndResourceVersionsDoNotOverflow) {
  const std::string pod =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"node-0"}})";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod).status, 201);
  const std::string path = "/api/v1/namespaces/default/pods/p";
  expect_status(call("DELETE", path + "?gracePeriodSeconds=99999999999999999999"), 400,
                "BadRequest");
  expect_status(
      call("DELETE", path, R"({"preconditions":{"resourceVersion":"123456789012345678901"}})"), 409,
      "Conflict");
  expect_status(call("DELETE", path, R"({"gracePeriodSeconds":99999999999999999999})"), 400,
                "BadRequest");
  const Reply deleted = call("DELETE", path, R"({"gracePeriodSeconds":9223372036854775})");
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  world_->advance(1000);
  expect_alive();
}

TEST_F(ServeRobust, JsonPatchGrowthAndSizeAreBounded) {
  ASSERT_EQ(call("POST", kConfigMaps, configmap("c")).status, 201);
  Json ops =
      Json::array({{{"op", "add"}, {"path", "/data"}, {"value", {{"a", std::string(40, 'x')}}}}});
  for (int i = 0; i < 18; ++i) {
    ops.push_back({{"op", "copy"}, {"from", "/data"}, {"path", "/data/k" + std::to_string(i)}});
  }
  const std::string path = std::string(kConfigMaps) + "/c";
  expect_status(call("PATCH", path, ops.dump(), "application/json-patch+json"), 422, "Invalid");
  Json many = Json::array();
  for (int i = 0; i < 10001; ++i)
    many.push_back({{"op", "test"}, {"path", "/kind"}, {"value", "ConfigMap"}});
  expect_status(call("PATCH", path, many.dump(), "application/json-patch+json"), 413,
                "RequestEntityTooLarge");
  // A few copies within the bound apply.
  Json few = Json::array({{{"op", "add"}, {"path", "/data"}, {"value", {{"a", "b"}}}},
                          {{"op", "copy"}, {"from", "/data/a"}, {"path", "/data/c"}}});
  const Reply patched = call("PATCH", path, few.dump(), "application/json-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["data"]["c"], "b");
  expect_alive();
}

TEST_F(ServeRobust, OversizedBodiesAreRefusedBeforeBuffering) {
  // A Content-Length past 3 MiB: 413 before a byte of the body is sent.
  const Reply declared = call("POST " + std::string(kConfigMaps) +
                              " HTTP/1.1\r\nHost: t\r\nContent-Type: "
                              "application/json\r\nContent-Length: 1000000000\r\n\r\n");
  expect_status(declared, 413, "RequestEntityTooLarge");
  EXPECT_NE(declared.body.find("limit is 3145728"), std::string::npos);
  // A chunked body: 413 once its chunks pass 3 MiB (the client keeps sending; 8 MiB here).
  const int fd = connect_to(port_);
  send_all(fd, "POST " + std::string(kConfigMaps) +
                   " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
  for (int i = 0; i < 128 && send_all(fd, chunk); ++i) {
  }
  const Reply chunked = read_reply(fd);
  ::close(fd);
  expect_status(chunked, 413, "RequestEntityTooLarge");
  expect_alive();
}

TEST_F(ServeRobust, HeaderCountAndSizeAreBounded) {
  std::string many = "GET /version HTTP/1.1\r\nHost: t\r\n";
  for (int i = 0; i < 5000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(call(many + "\r\n").status, 431);
  const std::string big =
      "GET /version HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(2u << 20, 'a');
  EXPECT_EQ(call(big + "\r\n\r\n").status, 431);
  expect_alive();
}

TEST_F(ServeRobust, NamesAreValidatedAsKubernetesDoes) {
  const std::vector<std::string> names = {"a/b", "..", std::string("a\0b", 3),
                                          std::string(300, 'a'), "Upper"};
  for (const std::string& name : names) {
    const Reply reply = call("POST", kConfigMaps, configmap(name));
    expect_status(reply, 422, "Invalid");
    EXPECT_NE(reply.body.find("metadata.name: Invalid value"), std::string::npos) << reply.body;
  }
  EXPECT_NE(call("POST", kConfigMaps, configmap(std::string(300, 'a')))
                .body.find("must be no more than 253 characters"),
            std::string::npos);
  const Reply ns = call("POST", "/api/v1/namespaces",
                        R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a.b"}})");
  expect_status(ns, 422, "Invalid");
  EXPECT_NE(ns.body.find("RFC 1123 label"), std::string::npos) << ns.body;
  EXPECT_EQ(call("POST", kConfigMaps, configmap("a.b-c")).status, 201);
}

TEST_F(ServeRobust, ReplicasAreValidatedAsKubernetesDoes) {
  const std::string path = "/apis/apps/v1/namespaces/default/deployments";
  const Reply negative = call("POST", path, deployment(-5));
  expect_status(negative, 422, "Invalid");
  EXPECT_NE(
      negative.body.find("spec.replicas: Invalid value: -5: must be greater than or equal to 0"),
      std::string::npos)
      << negative.body;
  for (const Json& bad : {Json(2.5), Json("3"), Json(true), Json(10000000000LL)}) {
    const Reply reply = call("POST", path, deployment(bad));
    expect_status(reply, 400, "BadRequest");
    EXPECT_NE(reply.body.find("cannot unmarshal"), std::string::npos) << reply.body;
  }
  EXPECT_EQ(call("POST", path, deployment(3)).status, 201);
}

TEST_F(ServeRobust, AMillionReplicasAreCreatedInBurstsOf500) {
  ASSERT_EQ(
      call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment(1000000)).status,
      201);
  std::uint64_t rv = 0;
  world_->advance(2000);
  const std::size_t first = world_->list("Pod", "default", rv).size();
  EXPECT_EQ(first, 500u);
  world_->advance(60000);  // Two more bursts at most (one per 25 s).
  const std::size_t later = world_->list("Pod", "default", rv).size();
  EXPECT_GE(later, 1000u);
  EXPECT_LE(later, 1500u);
  expect_alive();
}

// "100 open watches and 500 idle connections do not delay other requests beyond 100 ms" (issue
// #32). Speed is a measurement here, not a timed assertion (STYLE.md): the figures are printed
// (serve/README.md "Connections"); the test asserts that every connection was taken by the
// server (not left in the kernel's accept queue), that every request is answered (no timeout:
// the old server answered none) and only a generous bound on the slowest.
TEST_F(ServeRobust, OpenWatchesAndIdleConnectionsDoNotDelayOtherRequests) {
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = connect_to(port_);
    send_all(fd, request("GET", std::string(kConfigMaps) + "?watch=true&timeoutSeconds=60"));
    fds.push_back(fd);
  }
  for (int i = 0; i < 500; ++i) fds.push_back(connect_to(port_));
  // Give the server time to take every connection and start every watch.
  for (int i = 0; i < 500 && (server_->open_streams() < 100 || server_->open_connections() < 600);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server_->open_streams(), 100u);
  EXPECT_GE(server_->open_connections(), 600u);
  std::vector<std::int64_t> ms;
  for (int i = 0; i < 20; ++i) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(call("GET", kConfigMaps).status, 200);
    ms.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  EXPECT_EQ(server_->open_streams(), 100u);  // The watches still stream.
  std::sort(ms.begin(), ms.end());
  std::printf(
      "100 watches + 500 idle connections (%zu open): 20 GETs, median %lld ms, slowest %lld ms\n",
      server_->open_connections(), static_cast<long long>(ms[ms.size() / 2]),
      static_cast<long long>(ms.back()));
  EXPECT_LT(ms.back(), 5000);  // Generous (a loaded 2-core machine); the figure is a few ms.
  for (const int fd : fds) ::close(fd);
}

TEST_F(ServeRobust, WatchesBeyondTheBoundAreTooManyRequests) {
  stop();
  ServerOptions options;
  options.streams_max = 2;
  start(options);
  std::vector<int> fds;
  for (int i = 0; i < 2; ++i) {
    const int fd = connect_to(port_);
    send_all(fd, request("GET", std::string(kConfigMaps) + "?watch=true&timeoutSeconds=30"));
    fds.push_back(fd);
  }
  for (int i = 0; i < 100 && server_->open_streams() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const Reply third = call("GET", std::string(kConfigMaps) + "?watch=true&timeoutSeconds=30");
  expect_status(third, 429, "TooManyRequests");
  EXPECT_NE(third.head.find("Retry-After: 1"), std::string::npos);
  for (const int fd : fds) ::close(fd);
}

TEST_F(ServeRobust, PipelinedAndChunkedRequestsAreServed) {
  const std::string body = configmap("q");
  char size_line[16];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", body.size());
  const int fd = connect_to(port_);
  send_all(fd, "POST " + std::string(kConfigMaps) +
                   " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n" +
                   size_line + body + "\r\n0\r\n\r\n" +
                   request("GET", std::string(kConfigMaps) + "/q"));
  // Both answers may arrive in one recv: what the first read takes past its answer is the second.
  std::string carry;
  EXPECT_EQ(read_reply(fd, 10000, &carry).status, 201);
  EXPECT_EQ(read_reply(fd, 10000, &carry).status, 200);
  ::close(fd);
}

TEST(ServeRobustPort, PortsOutsideOneTo65535AreRefused) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::Cluster cluster(sim, kube::ClusterOptions{});
  World world(sim, cluster.api(), 10);
  ServerOptions options;
  options.port = 65536;
  Server server(world, options);
  std::string error;
  EXPECT_EQ(server.bind(error), -1);
  EXPECT_NE(error.find("1..65535"), std::string::npos) << error;
}

}  // namespace
}  // namespace wsim::serve
