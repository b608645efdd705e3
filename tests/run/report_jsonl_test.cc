// trace.jsonl (report.h): every line of a real bundle's trace and of a trace full of awkward
// bytes is one valid JSON object — checked by a small strict JSON parser here, and by python3's
// json module when python3 is installed.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/gitlab/register.h"
#include "sim/report/report.h"
#include "sim/run/driver.h"
#include "sim/run/scenario.h"
#include "tests/run/test_util.h"

namespace wsim::run {
namespace {

// A strict recursive-descent JSON checker (RFC 8259): objects, arrays, strings with escapes,
// numbers, literals; no control characters inside strings; valid UTF-8 is the producer's job.
class Json {
 public:
  explicit Json(std::string_view text) : s_(text) {}
  bool object_line() {
    ws();
    if (!peek('{') || !value()) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool lit(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool string() {
    if (!peek('"')) return false;
    ++i_;
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return false;
        const char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k) {
            if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k])))
              return false;
          }
          i_ += 4;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return false;
        }
      }
      ++i_;
    }
    return false;
  }
  bool number() {
    const std::size_t start = i_;
    if (peek('-')) ++i_;
    if (!(i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))) return false;
    if (peek('0')) {
      ++i_;
    } else {
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (peek('.')) {
      ++i_;
      if (!(i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))) return false;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    return i_ > start;
  }
  bool value() {
    ws();
    if (peek('{')) {
      ++i_;
      ws();
      if (peek('}')) return ++i_, true;
      while (true) {
        ws();
        if (!string()) return false;
        ws();
        if (!peek(':')) return false;
        ++i_;
        if (!value()) return false;
        ws();
        if (peek('}')) return ++i_, true;
        if (!peek(',')) return false;
        ++i_;
      }
    }
    if (peek('[')) {
      ++i_;
      ws();
      if (peek(']')) return ++i_, true;
      while (true) {
        if (!value()) return false;
        ws();
        if (peek(']')) return ++i_, true;
        if (!peek(',')) return false;
        ++i_;
      }
    }
    if (peek('"')) return string();
    if (lit("true") || lit("false") || lit("null")) return true;
    return number();
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

TEST(ReportJsonl, CheckerRejectsBrokenJson) {
  EXPECT_TRUE(Json(R"({"a":1,"b":"x\"y\u00e9","c":[true,null,-0.5]})").object_line());
  EXPECT_FALSE(Json(R"({"a":1,})").object_line());
  EXPECT_FALSE(Json("{\"a\":\"tab\there\"}").object_line());
  EXPECT_FALSE(Json(R"({"a":"\x"})").object_line());
  EXPECT_FALSE(Json(R"({"a":1} x)").object_line());
}

void expect_valid_jsonl(const std::string& jsonl, std::size_t events) {
  std::size_t lines = 0;
  for (std::size_t begin = 0, end = jsonl.find('\n'); end != std::string::npos;
       begin = end + 1, end = jsonl.find('\n', begin)) {
    const std::string_view line(jsonl.data() + begin, end - begin);
    EXPECT_TRUE(Json(line).object_line()) << "line " << lines << ": " << line;
    ++lines;
  }
  EXPECT_EQ(lines, events);
  EXPECT_TRUE(jsonl.empty() || jsonl.back() == '\n');
}

// python3's json module, when there is a python3: every line parses to an object with the six
// event fields.
void expect_python_parses(const std::string& jsonl, std::size_t events) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir = testing::scratch_dir("jsonl-python");
  testing::write_text(dir + "/trace.jsonl", jsonl);
  const std::string script =
      "import json,sys\n"
      "n=0\n"
      "for line in open(sys.argv[1], encoding='utf-8'):\n"
      "    e=json.loads(line)\n"
      "    assert isinstance(e, dict) and e['i']==n, line\n"
      "    for k in ('time_ms','actor','verb','object','result','detail'): assert k in e, k\n"
      "    n+=1\n"
      "print(n)\n";
  testing::write_text(dir + "/check.py", script);
  std::string output;
  FILE* pipe = ::popen(("python3 " + dir + "/check.py " + dir + "/trace.jsonl 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  EXPECT_EQ(::pclose(pipe), 0) << output;
  EXPECT_EQ(output, std::to_string(events) + "\n");
}

TEST(ReportJsonl, LimboTraceParses) {
  gitlab::register_gitlab_system();
  LoadedScenario loaded;
  std::string error;
  ASSERT_TRUE(load_scenario_file(
      std::string(WSIM_SOURCE_DIR) + "/corpus/regressions/gitlab/limbo-411205.textproto", loaded,
      error))
      << error;
  loaded.scenario.mutable_gitlab()->set_agent("A0a");  // The corpus file runs every version.
  ASSERT_TRUE(validate_scenario(loaded, error)) << error;
  RunOptions options;
  options.keep_trace = true;
  const RunResult result = execute_run(*loaded.system, loaded.scenario, options);
  const std::string jsonl = render_trace_jsonl(result);
  expect_valid_jsonl(jsonl, result.trace.size());
  expect_python_parses(jsonl, result.trace.size());
}

TEST(ReportJsonl, AwkwardBytesParse) {
  RunResult result;
  const std::string nasty[] = {"quote \" backslash \\ slash /",
                               "new\nline\r\ttab",
                               std::string("nul\0byte", 8),
                               "ctrl \x01\x1f\x7f",
                               "utf8 caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80",
                               "broken \xff\xfe \xc3 \xe2\x82",
                               "overlong \xc0\xaf surrogate \xed\xa0\x80",
                               "</script>"};
  TimeMs t = 0;
  for (const std::string& a : nasty) {
    for (const std::string& b : nasty) result.trace.push_back({t++, a, b, a, b, a + b});
  }
  result.violation_event = result.trace.size() - 1;
  const std::string jsonl = render_trace_jsonl(result);
  expect_valid_jsonl(jsonl, result.trace.size());
  expect_python_parses(jsonl, result.trace.size());
}

}  // namespace
}  // namespace wsim::run
