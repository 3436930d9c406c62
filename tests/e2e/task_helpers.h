#pragma once
// Reading tasks and tool results out of parsed responses, for the tests of tasks (both
// eras, stdio and HTTP). Lenient accessors: a missing member reads as "<none>" or null, so
// that a failing check reports the response instead of tripping RapidJSON's assertions.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cctype>
#include <chrono>
#include <functional>
#include <regex>
#include <string>
#include <thread>

#include "exec_helpers.h"

namespace mcpsh::testing::tasks {

// The string member `key` of `v`, or "<none>".
inline std::string field(const rapidjson::Value& v, const char* key) {
  return v.IsObject() && v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "<none>";
}

// The member `key` of `v`, or null when `v` is no object or has none.
inline const rapidjson::Value& at(const rapidjson::Value& v, const char* key) {
  static const rapidjson::Value none;
  return v.IsObject() && v.HasMember(key) ? v[key] : none;
}

inline const rapidjson::Value& result(const rapidjson::Value& d) { return at(d, "result"); }

// error.code of a response, or 0.
inline int error_code(const rapidjson::Value& d) {
  const auto& code = at(at(d, "error"), "code");
  return code.IsInt() ? code.GetInt() : 0;
}

// The text of content[0] of a CallToolResult object.
inline std::string first_text(const rapidjson::Value& call_result) {
  const auto& content = at(call_result, "content");
  if (!content.IsArray() || content.Empty()) return "<no content>";
  return field(content[0], "text");
}

inline bool is_iso8601(const std::string& s) {
  static const std::regex kIso(
      R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2}))");
  return std::regex_match(s, kIso);
}

// A task id: 16 random bytes as base64url without padding.
inline bool is_task_id(const std::string& s) {
  if (s.size() != 22) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

// The fields every task shows, with status `status`: taskId, createdAt, lastUpdatedAt, the
// ttl (an integer or null) and optionally a positive poll interval and a statusMessage.
// `legacy`: the names of 2025-11-25 (ttl, pollInterval), else the extension's (ttlMs,
// pollIntervalMs).
inline ::testing::AssertionResult has_task_fields(const rapidjson::Value& t,
                                                  const std::string& status, bool legacy) {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << why << ": " << exec::compact(t);
  };
  if (!t.IsObject()) return fail("not an object");
  if (!is_task_id(field(t, "taskId"))) return fail("taskId is no 22-character base64url id");
  if (field(t, "status") != status) return fail("status is not " + status);
  for (const char* stamp : {"createdAt", "lastUpdatedAt"})
    if (!is_iso8601(field(t, stamp))) return fail(std::string(stamp) + " is not ISO 8601");
  const char* ttl = legacy ? "ttl" : "ttlMs";
  const char* poll = legacy ? "pollInterval" : "pollIntervalMs";
  if (!t.HasMember(ttl) || !(t[ttl].IsInt64() || t[ttl].IsNull()))
    return fail(std::string(ttl) + " is neither an integer nor null");
  if (t.HasMember(poll) && !(t[poll].IsInt64() && t[poll].GetInt64() > 0))
    return fail(std::string(poll) + " is not a positive integer");
  if (t.HasMember("statusMessage") && !t["statusMessage"].IsString())
    return fail("statusMessage is not a string");
  return ::testing::AssertionSuccess();
}

// Calls `get` (a tasks/get of task `id`) until `done` holds for its response, for up to
// 20 s (then the test fails); returns the last response.
inline rapidjson::Document poll_task(const std::function<rapidjson::Document()>& get,
                                     const std::string& id,
                                     const std::function<bool(const rapidjson::Document&)>& done,
                                     const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    auto d = get();
    if (done(d)) return d;
    if (std::chrono::steady_clock::now() >= deadline) {
      ADD_FAILURE() << "task " << id << " never got to " << what << "; last: " << exec::compact(d);
      return d;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace mcpsh::testing::tasks
