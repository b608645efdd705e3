// The serve_http_fuzz target's body (serve_http_target.h, fuzz/README.md): the input split into at
// most kRequestsMax requests (bodies up to kBodyBytesMax), each served by Server::handle over a
// fresh live cluster, every response checked; a finding prints SERVE-HTTP-FINDING and aborts.
#include "fuzz/serve_http_target.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "serve/codec.h"
#include "serve/http.h"
#include "serve/server.h"
#include "serve/world.h"
#include "sim/core/choice.h"
#include "sim/core/sim.h"
#include "sim/kube/cluster.h"

namespace wsim::fuzz {
namespace {

constexpr int kRequestsMax = 16;    // Per input: enough for create, patch, get, delete.
constexpr int kStreamCallsMax = 4;  // Provider calls per watch (the world is closed first).
constexpr std::size_t kBodyBytesMax = 64 * 1024;  // Smaller than the server's: faster inputs.

[[noreturn]] void finding(const std::string& what, const serve::http::Request* req,
                          const std::string& body) {
  std::fprintf(stderr, "SERVE-HTTP-FINDING: %s\n", what.c_str());
  if (req != nullptr) {
    std::fprintf(stderr, "  request: %s %s\n", req->method.c_str(), req->target.c_str());
  }
  std::fprintf(stderr, "  response body: %.2000s\n", body.c_str());
  std::abort();
}

void check_response(const serve::http::Request& req, const serve::http::Response& res) {
  if (res.status < 100 || res.status > 599) finding("status out of range", &req, res.body);
  if (res.status == 500) finding("500: a handler threw", &req, res.body);
  if (!serve::http::valid_utf8(res.body)) finding("response is not UTF-8", &req, res.body);
  const bool json = res.headers.count("Content-Type") > 0 &&
                    res.headers.find("Content-Type")->second.rfind("application/json", 0) == 0;
  if (!json || res.streamed()) return;
  const serve::Json body = serve::Json::parse(res.body, nullptr, false);
  if (body.is_discarded()) finding("JSON response that does not parse", &req, res.body);
  if (res.status < 400) return;
  if (!body.is_object() || body.value("kind", "") != "Status") {
    finding("failure that is not a Status", &req, res.body);
  }
  if (body.value("code", 0) != res.status) finding("Status code differs", &req, res.body);
  if (body.value("reason", "").empty()) finding("Status without a reason", &req, res.body);
}

void drain(serve::http::Response& res) {
  serve::http::DataSink sink;
  std::string out;
  bool done = false;
  sink.write = [&](const char* data, std::size_t size) {
    out.append(data, size);
    return true;
  };
  sink.done = [&] { done = true; };
  sink.is_writable = [] { return true; };
  for (int i = 0; i < kStreamCallsMax && !done; ++i) {
    if (!res.provider(out.size(), sink)) break;
  }
  if (!serve::http::valid_utf8(out)) finding("watch stream is not UTF-8", nullptr, out);
}

}  // namespace

int serve_http_one_input(const std::uint8_t* data, std::size_t size) {
  Sim sim(ChoiceSource::from_seed(1));
  kube::ClusterOptions options;
  options.api.default_fault_rules = false;
  kube::Cluster cluster(sim, options);
  cluster.start();
  serve::World world(sim, cluster.api(), 1000);
  serve::Server server(world, serve::ServerOptions{});
  serve::http::HttpLimits limits;
  limits.body_bytes_max = kBodyBytesMax;
  serve::http::RequestParser parser(limits);
  std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<serve::http::Response> streams;
  int served = 0;
  while (served < kRequestsMax) {
    const auto state = parser.feed(input);
    if (state == serve::http::RequestParser::State::kNeedMore) break;
    if (state == serve::http::RequestParser::State::kError) {
      const int code = parser.error().status;
      if (code != 400 && code != 413 && code != 431 && code != 501) {
        finding("parser refusal with code " + std::to_string(code), nullptr, parser.error().body);
      }
      break;
    }
    serve::http::Response res;
    server.handle(parser.request(), res);
    if (res.status < 0 && res.streamed()) res.status = 200;
    check_response(parser.request(), res);
    if (res.streamed()) streams.push_back(std::move(res));
    ++served;
    parser.reset();
  }
  world.close();  // Watches then end at once instead of waiting for changes.
  for (serve::http::Response& res : streams) drain(res);
  return served;
}

}  // namespace wsim::fuzz
