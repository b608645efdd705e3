// Link: a request/response channel between two components (agentk ⇄ Rails, client ⇄ ws-manager).
//
// call() sends a request with a latency drawn from the link's choice stream; the server handler
// runs as its own actor at the far end (so cancelling the caller — an agent restart — does not
// abort the server's processing, as with a real HTTP server); the response travels back with
// another latency. Faults (fault points "<name>.lost_request" / "<name>.lost_response") and a
// partition make the caller wait timeout_ms and get kTimeout; with a lost response the server
// HAS acted. Choice 0 everywhere = minimum latency, nothing lost.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "sim/core/sim.h"
#include "sim/core/sync.h"
#include "sim/core/task.h"

namespace wsim::net {

struct LinkOptions {
  DurationMs min_latency_ms = 1;
  DurationMs max_latency_ms = 50;
  DurationMs timeout_ms = 30 * kSecondMs;
  Ratio lost_request_enable = {1, 4};
  Ratio lost_request_fire = {1, 20};
  Ratio lost_response_enable = {1, 4};
  Ratio lost_response_fire = {1, 20};
};

enum class LinkStatus { kOk, kTimeout };

template <typename Response>
struct LinkResult {
  LinkStatus status = LinkStatus::kOk;
  Response response{};
  bool ok() const { return status == LinkStatus::kOk; }
};

template <typename Request, typename Response>
class Link {
 public:
  using Handler = std::function<Task<Response>(Request)>;

  Link(Sim& sim, std::string name, LinkOptions options, Handler server)
      : sim_(sim),
        name_(std::move(name)),
        server_actor_name_(name_ + "/server"),
        options_(options),
        server_(std::move(server)),
        latency_(sim.stream(name_ + ".latency")),
        faults_(sim.stream(name_ + ".faults")) {
    lost_request_ =
        sim.faults().declare(name_ + ".lost_request", "request dropped before the server saw it",
                             options.lost_request_enable, options.lost_request_fire);
    lost_response_ =
        sim.faults().declare(name_ + ".lost_response", "response dropped after the server acted",
                             options.lost_response_enable, options.lost_response_fire);
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  const std::string& name() const { return name_; }
  void set_partitioned(bool partitioned) { partitioned_ = partitioned; }
  // Scripted fault: the next response to leave the server is lost (after the server acted).
  // Call it from the server handler to lose that very response.
  void lose_next_response() { lose_next_response_ = true; }
  bool partitioned() const { return partitioned_; }
  std::uint64_t calls() const { return calls_; }
  std::uint64_t lost() const { return lost_; }

  Task<LinkResult<Response>> call(Request request) {
    ++calls_;
    EventLoop& loop = sim_.loop();
    const DurationMs there_ms = draw_latency();
    co_await loop.sleep(there_ms);
    if (partitioned_ || sim_.faults().fires(lost_request_, faults_)) {
      ++lost_;
      sim_.record(name_, "request", "", "lost", partitioned_ ? "partition" : "fault");
      co_await loop.sleep(options_.timeout_ms - there_ms);
      co_return LinkResult<Response>{LinkStatus::kTimeout, {}};
    }
    OneShot<Response> reply(loop);
    loop.spawn(server_actor_name_, serve(std::move(request), reply));
    Response response = co_await reply;
    const bool scripted = std::exchange(lose_next_response_, false);
    if (scripted || partitioned_ || sim_.faults().fires(lost_response_, faults_)) {
      ++lost_;
      sim_.record(name_, "response", "", "lost",
                  scripted ? "scripted" : (partitioned_ ? "partition" : "fault"));
      co_await loop.sleep(options_.timeout_ms);
      co_return LinkResult<Response>{LinkStatus::kTimeout, {}};
    }
    co_await loop.sleep(draw_latency());
    co_return LinkResult<Response>{LinkStatus::kOk, std::move(response)};
  }

 private:
  DurationMs draw_latency() {
    return latency_.range(options_.min_latency_ms, options_.max_latency_ms);
  }
  Task<void> serve(Request request, OneShot<Response> reply) {
    reply.set(co_await server_(std::move(request)));
  }

  Sim& sim_;
  std::string name_;
  std::string server_actor_name_;  // name_ + "/server", built once rather than per call.
  LinkOptions options_;
  Handler server_;
  ChoiceStream latency_;
  ChoiceStream faults_;
  FaultId lost_request_ = 0;
  FaultId lost_response_ = 0;
  bool partitioned_ = false;
  bool lose_next_response_ = false;
  std::uint64_t calls_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace wsim::net
