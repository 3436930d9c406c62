#include "http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <cerrno>
#include <regex>
#include <thread>

namespace mcpsh::testing::http {

namespace bhttp = boost::beast::http;

HttpHost::HttpHost(const std::vector<std::string>& args, HostOptions options) {
  std::vector<std::string> all{"--http", "--listen", "127.0.0.1:0"};
  all.insert(all.end(), args.begin(), args.end());
  process_ = std::make_unique<HostProcess>(all, std::move(options));
  const std::regex listening(R"(listening on http://127\.0\.0\.1:([0-9]+)(/\S*))");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    const std::string err = process_->stderr_text();
    if (std::regex_search(err, m, listening)) {
      port_ = std::stoi(m[1]);
      path_ = m[2];
      return;
    }
    if (process_->wait_exit(0ms)) break;
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "the host did not report its address: " << process_->stderr_text();
}

std::vector<std::string> sse_data(const std::string& body) {
  std::vector<std::string> data;
  std::size_t at = 0;
  while ((at = body.find("data: ", at)) != std::string::npos) {
    if (at != 0 && body[at - 1] != '\n') {
      at += 6;
      continue;
    }
    auto end = body.find('\n', at);
    data.push_back(body.substr(at + 6, end - at - 6));
    at = end;
  }
  return data;
}

Client::Client(int port, int receive_buffer) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (receive_buffer > 0)
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    ADD_FAILURE() << "cannot connect to port " << port << ": " << std::strerror(errno);
}

Client::~Client() { close(); }

void Client::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Client::shutdown_send() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

bool Client::send(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool Client::read_some(std::chrono::steady_clock::time_point deadline) {
  if (eof_ || fd_ < 0) return false;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  int r = ::poll(&p, 1, static_cast<int>(left.count()));
  if (r <= 0) return false;
  char chunk[65536];
  ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::optional<Response> Client::read_response(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(1u << 30);
  parser.eager(true);
  std::size_t used_total = 0;
  std::string pending = buffer_;
  buffer_.clear();
  while (true) {
    boost::system::error_code ec;
    std::size_t used = 0;
    if (!pending.empty()) {
      used = parser.put(boost::asio::buffer(pending), ec);
      pending.erase(0, used);
      used_total += used;
    }
    if (!ec && parser.is_done()) break;
    if (ec && ec != bhttp::error::need_more) {
      ADD_FAILURE() << "cannot parse the response: " << ec.message();
      return std::nullopt;
    }
    if (used > 0 && !pending.empty()) continue;
    if (!read_some(deadline)) {
      if (eof_ && parser.is_header_done() && !parser.is_done()) {
        parser.put_eof(ec);
        if (!ec && parser.is_done()) break;
      }
      buffer_ = pending;
      return std::nullopt;
    }
    pending += buffer_;
    buffer_.clear();
  }
  buffer_ = pending;  // the start of a next response, if any
  auto message = parser.release();
  Response r;
  r.status = static_cast<int>(message.result_int());
  for (const auto& f : message) {
    std::string name(f.name_string());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    r.headers[name] = std::string(f.value());
  }
  r.body = std::move(message.body());
  return r;
}

bool Client::wait_for(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (buffer_.find(needle) == std::string::npos)
    if (!read_some(deadline)) return false;
  return true;
}

bool Client::closed_by_server(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!eof_) {
    if (!read_some(deadline) && !eof_) return false;
  }
  return true;
}

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string with_headers(std::string start, Headers defaults, const Headers& headers) {
  for (const auto& [name, value] : headers) {
    auto same = [&](const auto& h) { return lower(h.first) == lower(name); };
    defaults.erase(std::remove_if(defaults.begin(), defaults.end(), same), defaults.end());
    if (!value.empty()) defaults.emplace_back(name, value);
  }
  for (const auto& [name, value] : defaults) start += name + ": " + value + "\r\n";
  return start + "\r\n";
}
}  // namespace

// The request metadata headers a conforming client mirrors from a body (MCP 2026-07-28):
// MCP-Protocol-Version from _meta, Mcp-Method, and Mcp-Name for tools/call. ASCII values
// only: the tests that need base64 or mismatches give the headers themselves.
Headers mirrored_from(const std::string& body) {
  Headers out;
  rapidjson::Document d;
  if (d.Parse(body.c_str(), body.size()).HasParseError() || !d.IsObject()) return out;
  auto method = d.FindMember("method");
  if (method == d.MemberEnd() || !method->value.IsString()) return out;
  const std::string name = method->value.GetString();
  auto params = d.FindMember("params");
  if (params != d.MemberEnd() && params->value.IsObject()) {
    auto meta = params->value.FindMember("_meta");
    if (meta != params->value.MemberEnd() && meta->value.IsObject()) {
      auto version = meta->value.FindMember("io.modelcontextprotocol/protocolVersion");
      if (version != meta->value.MemberEnd() && version->value.IsString())
        out.emplace_back("MCP-Protocol-Version", version->value.GetString());
    }
    auto tool = params->value.FindMember("name");
    if (name == "tools/call" && tool != params->value.MemberEnd() && tool->value.IsString())
      out.emplace_back("Mcp-Name", tool->value.GetString());
  }
  out.emplace_back("Mcp-Method", name);
  return out;
}

std::string post(const std::string& path, const std::string& body, const Headers& headers) {
  Headers defaults{{"Host", "127.0.0.1"},
                   {"Content-Type", "application/json"},
                   {"Accept", "application/json, text/event-stream"},
                   {"Content-Length", std::to_string(body.size())}};
  for (auto& h : mirrored_from(body)) defaults.push_back(std::move(h));
  return with_headers("POST " + path + " HTTP/1.1\r\n", defaults, headers) + body;
}

std::string bare(const std::string& method, const std::string& path, const Headers& headers) {
  return with_headers(method + " " + path + " HTTP/1.1\r\n", {{"Host", "127.0.0.1"}}, headers);
}

std::optional<Response> exchange(int port, const std::string& request_bytes) {
  Client c(port);
  if (!c.send(request_bytes)) return std::nullopt;
  return c.read_response();
}

}  // namespace mcpsh::testing::http
