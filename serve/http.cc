// HTTP/1.1 messages and the incremental request parser (http.h). The input is hostile: head, header
// count and body bounds (HttpLimits) are checked before buffering, chunk sizes have at most
// kChunkSizeDigitsMax digits; http.h states the invariants (bytes held, kError is final). A parser
// belongs to one connection, one thread at a time.
#include "serve/http.h"

#include <strings.h>
#include <algorithm>
#include <cctype>

#include "serve/codec.h"

namespace wsim::serve::http {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr std::size_t kChunkSizeDigitsMax = 16;  // 64-bit sizes; more digits are refused.

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool is_token_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (std::isalnum(u)) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void parse_query(std::string_view query, Params& params) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    const std::string key = percent_decode(pair.substr(0, eq), true);
    const std::string value =
        eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1), true);
    params.emplace(key, value);
  }
}

// The length of the valid UTF-8 sequence at `text[i]`, or 0.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // No overlongs.
    if (b0 == 0xED) hi = 0x9F;  // No surrogates.
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // At most U+10FFFF.
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

bool CaseInsensitiveLess::operator()(const std::string& a, const std::string& b) const {
  return ::strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string Request::get_param_value(const std::string& key) const {
  const auto it = params.find(key);
  return it == params.end() ? "" : it->second;
}

std::string Request::get_header_value(const std::string& key) const {
  const auto it = headers.find(key);
  return it == headers.end() ? "" : it->second;
}

void Response::set_content(std::string content, const std::string& content_type) {
  body = std::move(content);
  set_header("Content-Type", content_type);
}

void Response::set_header(const std::string& key, const std::string& value) {
  headers.erase(key);
  headers.emplace(key, value);
}

void Response::set_chunked_content_provider(const std::string& content_type,
                                            ContentProvider content_provider) {
  set_header("Content-Type", content_type);
  provider = std::move(content_provider);
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Request Entity Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string serialize_head(const Response& response, bool keep_alive, bool chunked) {
  const int status = response.status < 100 || response.status > 999 ? 500 : response.status;
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
  for (const auto& [key, value] : response.headers) {
    // Header values come from handlers; a CR or LF would split the response.
    if (key.find_first_of("\r\n") != std::string::npos) continue;
    if (value.find_first_of("\r\n") != std::string::npos) continue;
    out += key + ": " + value + "\r\n";
  }
  if (chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  } else {
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  return out;
}

std::string serialize(const Response& response, bool keep_alive) {
  return serialize_head(response, keep_alive, false) + response.body;
}

Response refusal(int status, const std::string& message) {
  Response response;
  response.status = status;
  if (status == 413) {
    response.set_content(
        status_document(413, "RequestEntityTooLarge", "Request entity too large: " + message)
            .dump(-1, ' ', false, Json::error_handler_t::replace),
        "application/json");
  } else if (status == 429) {
    response.set_content(status_document(429, "TooManyRequests", message)
                             .dump(-1, ' ', false, Json::error_handler_t::replace),
                         "application/json");
    response.set_header("Retry-After", "1");
  } else {
    // Go's net/http answers malformed requests itself, in plain text.
    response.set_content(
        std::to_string(status) + " " + reason_phrase(status) + ": " + sanitize_utf8(message),
        "text/plain; charset=utf-8");
  }
  return response;
}

std::string percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += plus_is_space && c == '+' ? ' ' : c;
  }
  return out;
}

void RequestParser::reset() {
  phase_ = Phase::kHead;
  request_ = Request{};
  error_ = Response{};
  consumed_ = 0;
  fields_ = 0;
  content_length_ = 0;
  chunk_left_ = 0;
  head_scanned_ = 0;
  continue_sent_ = false;
}

RequestParser::State RequestParser::fail(int status, const std::string& message) {
  error_ = refusal(status, message);
  phase_ = Phase::kDone;
  return State::kError;
}

bool RequestParser::wants_continue() {
  if (!request_.expects_continue || continue_sent_ || phase_ == Phase::kHead) return false;
  if (phase_ == Phase::kDone) return false;
  continue_sent_ = true;
  return true;
}

RequestParser::State RequestParser::feed(std::string& input) {
  if (phase_ == Phase::kDone) return State::kError;
  if (phase_ == Phase::kHead) {
    const State state = parse_head(input);
    if (state != State::kDone) return state;
    const State body = start_body();
    if (body != State::kNeedMore) return body;
  }
  if (phase_ == Phase::kBody) return parse_body(input);
  return parse_chunked(input);
}

RequestParser::State RequestParser::parse_head(std::string& input) {
  // Leading empty lines before a request line are ignored (RFC 9112 §2.2).
  while (consumed_ == 0 && input.size() >= 2 && input.compare(0, 2, kCrlf) == 0) input.erase(0, 2);
  // Scan only what is new since the last call: a head sent a byte at a time stays linear.
  const std::size_t end = input.find("\r\n\r\n", head_scanned_ > 3 ? head_scanned_ - 3 : 0);
  head_scanned_ = input.size();
  if (end == std::string::npos) {
    if (input.size() > limits_.head_bytes_max) {
      return fail(431, "the request line and headers exceed " +
                           std::to_string(limits_.head_bytes_max) + " bytes");
    }
    // Bare-LF header ends are not accepted; the field count still bounds the map.
    consumed_ = input.empty() ? 0 : 1;
    return State::kNeedMore;
  }
  if (end + 4 > limits_.head_bytes_max) {
    return fail(431, "the request line and headers exceed " +
                         std::to_string(limits_.head_bytes_max) + " bytes");
  }
  const std::string head = input.substr(0, end + 2);
  input.erase(0, end + 4);
  consumed_ = end + 4;
  head_scanned_ = 0;
  return parse_head_lines(head);
}

bool RequestParser::parse_request_line(std::string_view line) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return false;
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return false;
  const std::string_view method = line.substr(0, sp1);
  if (!std::all_of(method.begin(), method.end(), is_token_char)) return false;
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  for (const char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return false;
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.keep_alive = version == "HTTP/1.1";
  if (target.rfind("http://", 0) == 0) {  // Absolute form: drop the authority.
    const std::size_t slash = target.find('/', 7);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  if (target.empty() || target.front() != '/') return false;
  const std::size_t question = target.find('?');
  request_.path = percent_decode(target.substr(0, question), false);
  if (question != std::string_view::npos) parse_query(target.substr(question + 1), request_.params);
  return true;
}

RequestParser::State RequestParser::parse_head_lines(std::string_view head) {
  std::size_t line_end = head.find(kCrlf);
  if (!parse_request_line(head.substr(0, line_end))) return fail(400, "malformed request line");
  head.remove_prefix(line_end + 2);
  while (!head.empty()) {
    line_end = head.find(kCrlf);
    const std::string_view line = head.substr(0, line_end);
    head.remove_prefix(line_end + 2);
    if (++fields_ > limits_.head_fields_max) {
      return fail(431, "more than " + std::to_string(limits_.head_fields_max) + " header fields");
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return fail(400, "malformed header line");
    const std::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), is_token_char)) {
      return fail(400, "malformed header name");
    }
    const std::string_view value = trim(line.substr(colon + 1));
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
      return fail(400, "malformed header value");
    }
    request_.headers.emplace(std::string(name), std::string(value));
  }
  const std::string connection = lower(request_.get_header_value("Connection"));
  if (connection.find("close") != std::string::npos) request_.keep_alive = false;
  if (connection.find("keep-alive") != std::string::npos) request_.keep_alive = true;
  request_.expects_continue = lower(request_.get_header_value("Expect")) == "100-continue";
  return State::kDone;
}

RequestParser::State RequestParser::start_body() {
  const auto te = request_.headers.equal_range("Transfer-Encoding");
  const auto cl = request_.headers.equal_range("Content-Length");
  if (te.first != te.second) {
    if (std::next(te.first) != te.second || lower(te.first->second) != "chunked") {
      return fail(501, "unsupported transfer encoding: only \"chunked\" is accepted");
    }
    if (cl.first != cl.second) return fail(400, "both Transfer-Encoding and Content-Length");
    phase_ = Phase::kChunkSize;
    return State::kNeedMore;
  }
  std::string length_text;
  for (auto it = cl.first; it != cl.second; ++it) {
    if (!length_text.empty() && it->second != length_text) {
      return fail(400, "conflicting Content-Length headers");
    }
    length_text = it->second;
  }
  if (length_text.empty() && cl.first != cl.second) return fail(400, "bad Content-Length");
  if (length_text.size() > 19 || length_text.find_first_not_of("0123456789") != std::string::npos) {
    return fail(400, "bad Content-Length \"" + length_text + "\"");
  }
  content_length_ = length_text.empty() ? 0 : std::stoull(length_text);
  if (content_length_ > limits_.body_bytes_max) {
    return fail(413, "limit is " + std::to_string(limits_.body_bytes_max));
  }
  phase_ = Phase::kBody;
  if (content_length_ == 0) {
    phase_ = Phase::kDone;
    return State::kDone;
  }
  return State::kNeedMore;
}

RequestParser::State RequestParser::parse_body(std::string& input) {
  const std::size_t want = static_cast<std::size_t>(content_length_) - request_.body.size();
  const std::size_t take = std::min(want, input.size());
  request_.body.append(input, 0, take);
  input.erase(0, take);
  if (request_.body.size() < content_length_) return State::kNeedMore;
  phase_ = Phase::kDone;
  return State::kDone;
}

RequestParser::State RequestParser::parse_chunked(std::string& input) {
  for (;;) {
    if (phase_ == Phase::kChunkSize || phase_ == Phase::kChunkDataEnd) {
      const std::size_t eol = input.find(kCrlf);
      if (eol == std::string::npos) {
        if (input.size() > 4096) return fail(400, "malformed chunk size line");
        return State::kNeedMore;
      }
      if (phase_ == Phase::kChunkDataEnd) {
        if (eol != 0) return fail(400, "malformed chunk: missing CRLF after the data");
        input.erase(0, 2);
        phase_ = Phase::kChunkSize;
        continue;
      }
      const std::string_view line(input.data(), eol);
      const std::string_view digits = trim(line.substr(0, line.find(';')));
      if (digits.empty() || digits.size() > kChunkSizeDigitsMax) {
        return fail(400, "malformed chunk size");
      }
      std::uint64_t size = 0;
      for (const char c : digits) {
        const int v = hex_value(c);
        if (v < 0) return fail(400, "malformed chunk size");
        size = size * 16 + static_cast<std::uint64_t>(v);
      }
      input.erase(0, eol + 2);
      if (size > limits_.body_bytes_max - request_.body.size()) {
        return fail(413, "limit is " + std::to_string(limits_.body_bytes_max));
      }
      chunk_left_ = size;
      phase_ = size == 0 ? Phase::kTrailer : Phase::kChunkData;
      continue;
    }
    if (phase_ == Phase::kChunkData) {
      const std::size_t take = std::min<std::uint64_t>(chunk_left_, input.size());
      request_.body.append(input, 0, take);
      input.erase(0, take);
      chunk_left_ -= take;
      if (chunk_left_ > 0) return State::kNeedMore;
      phase_ = Phase::kChunkDataEnd;
      continue;
    }
    // Trailer fields until an empty line; they count against the head limits, and are dropped.
    const std::size_t eol = input.find(kCrlf);
    if (eol == std::string::npos) {
      if (consumed_ + input.size() > limits_.head_bytes_max) {
        return fail(431,
                    "the trailers exceed " + std::to_string(limits_.head_bytes_max) + " bytes");
      }
      return State::kNeedMore;
    }
    consumed_ += eol + 2;
    input.erase(0, eol + 2);
    if (eol == 0) {
      phase_ = Phase::kDone;
      return State::kDone;
    }
    if (++fields_ > limits_.head_fields_max || consumed_ > limits_.head_bytes_max) {
      return fail(431, "more than " + std::to_string(limits_.head_fields_max) + " header fields");
    }
  }
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::size_t json_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace wsim::serve::http
