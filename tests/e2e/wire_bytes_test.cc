// Every byte the host writes is valid UTF-8 and valid JSON, whatever came in: raw bytes
// from mcp_log and mcp_progress, lone surrogate escapes ("\udc00", "\ud800") from the
// client (ids, method names, tool names, arguments) and from a tool's JSON output. A lone
// surrogate is read as U+FFFD, one for each. And a NUL byte does not end a line early.
#include <gtest/gtest.h>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

const std::string kFffd = "\xEF\xBF\xBD";

// Strict UTF-8 (no surrogates, no overlong forms, nothing above U+10FFFF), written here
// independently of the host's own checker.
bool strictly_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    static const std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// A line a strict client accepts: valid UTF-8, one JSON object, and no surrogate escape
// (which would decode to a string that is not Unicode).
::testing::AssertionResult wire_clean(const std::string& line) {
  if (!strictly_utf8(line)) return ::testing::AssertionFailure() << "invalid UTF-8: " << line;
  auto d = parse_strict(line);
  if (d.HasParseError() || !d.IsObject())
    return ::testing::AssertionFailure() << "not a JSON object: " << line;
  for (std::size_t at = line.find("\\u"); at != std::string::npos; at = line.find("\\u", at + 1)) {
    const char c = line.size() > at + 3 ? static_cast<char>(std::tolower(line[at + 2])) : 0;
    const char c2 = line.size() > at + 3 ? static_cast<char>(std::tolower(line[at + 3])) : 0;
    if (c == 'd' && c2 >= '8' && c2 <= 'f' && (at == 0 || line[at - 1] != '\\'))
      return ::testing::AssertionFailure() << "a surrogate escape: " << line;
  }
  return ::testing::AssertionSuccess();
}

std::string fixture_script() { return fixture("raw_bytes.sh"); }

// Sends `line`, closes stdin, and returns every line the host writes until it exits.
std::vector<std::string> transcript(HostProcess& host, const std::string& line) {
  host.send(line);
  host.close_stdin();
  auto lines = lines_until_eof(host);
  EXPECT_EQ(host.wait_exit(), 0);
  return lines;
}

TEST(WireBytes, LoneSurrogateIdIsEchoedAsReplacementCharacter) {
  for (const char* id : {R"("\udc00")", R"("x\ud800")"}) {
    HostProcess host({fixture_script()});
    auto lines = transcript(host, request(id, "tools/list"));
    ASSERT_EQ(lines.size(), 1u) << id;
    ASSERT_TRUE(wire_clean(lines[0]));
    auto d = parse_strict(lines[0]);
    ASSERT_TRUE(d.HasMember("id") && d["id"].IsString()) << lines[0];
    const std::string expected =
        std::string(id).find('x') == std::string::npos ? kFffd : "x" + kFffd;
    EXPECT_EQ(d["id"].GetString(), expected) << lines[0];
    EXPECT_TRUE(d.HasMember("result")) << lines[0];
  }
}

TEST(WireBytes, LoneSurrogateMethodNameInTheError) {
  HostProcess host({fixture_script()});
  auto lines = transcript(host, request("1", R"(tools/\udc00)"));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_TRUE(wire_clean(lines[0]));
  EXPECT_TRUE(is_error_response(lines[0], -32601, "1"));
  EXPECT_NE(error_message(lines[0]).find("tools/" + kFffd), std::string::npos) << lines[0];
}

TEST(WireBytes, LoneSurrogateToolNameInTheError) {
  HostProcess host({fixture_script()});
  auto lines = transcript(host, call_request("1", R"(echo\udc00)"));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_TRUE(wire_clean(lines[0]));
  EXPECT_NE(error_message(lines[0]).find("echo" + kFffd), std::string::npos) << lines[0];
}

TEST(WireBytes, ToolReceivesLoneSurrogatesAsReplacementCharacters) {
  HostProcess host({fixture_script()});
  auto lines = transcript(host, call_request("1", "echo_args", R"({"a\udc00":"\ud800|\udc00"})"));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_TRUE(wire_clean(lines[0]));
  auto d = parse_strict(lines[0]);
  EXPECT_EQ(result_text(d), "{\"a" + kFffd + "\":\"" + kFffd + "|" + kFffd + "\"}") << lines[0];
}

TEST(WireBytes, StructuredOutputWithLoneSurrogates) {
  HostProcess host({fixture_script()});
  auto lines = transcript(host, call_request("1", "lone_surrogates"));
  ASSERT_EQ(lines.size(), 1u);
  ASSERT_TRUE(wire_clean(lines[0]));
  auto d = parse_strict(lines[0]);
  ASSERT_FALSE(is_error_result(d)) << lines[0];
  ASSERT_TRUE(d["result"].HasMember("structuredContent")) << lines[0];
  const auto& s = d["result"]["structuredContent"];
  EXPECT_EQ(s["low"].GetString(), "a" + kFffd + "b");
  EXPECT_EQ(s["high"].GetString(), "c" + kFffd + "d");
  EXPECT_TRUE(s.HasMember(("k" + kFffd).c_str())) << lines[0];
  // The text block is the same JSON, also clean.
  auto text = parse_strict(result_text(d));
  ASSERT_TRUE(text.IsObject()) << result_text(d);
  EXPECT_EQ(text["low"].GetString(), "a" + kFffd + "b");
}

TEST(WireBytes, RawBytesInLogAndProgressAreRepaired) {
  HostProcess host({fixture_script()});
  auto lines = transcript(host, call_request("1", "raw_log", "{}",
                                             R"("progressToken":"p",)"
                                             R"("io.modelcontextprotocol/logLevel":"debug")"));
  bool saw_log = false, saw_progress = false;
  for (const auto& line : lines) {
    ASSERT_TRUE(wire_clean(line));
    auto d = parse_strict(line);
    if (method_of(d) == "notifications/message") {
      saw_log = true;
      EXPECT_EQ(std::string(d["params"]["data"].GetString()),
                "log " + kFffd + kFffd + " bytes " + kFffd)
          << line;
    }
    if (method_of(d) == "notifications/progress") {
      saw_progress = true;
      EXPECT_EQ(std::string(d["params"]["message"].GetString()),
                "progress " + kFffd + " bytes " + kFffd + kFffd + kFffd)
          << line;
    }
  }
  EXPECT_TRUE(saw_log);
  EXPECT_TRUE(saw_progress);
}

// ---- a NUL byte ends nothing ------------------------------------------------------------

TEST(WireBytes, NulByteMakesTheLineAParseError) {
  HostProcess host({fixture_script()});
  host.send(request("1", "tools/list") + std::string(1, '\0') + request("2", "tools/list"));
  host.send(request("3", "tools/list"));
  host.close_stdin();
  auto lines = lines_until_eof(host);
  ASSERT_EQ(lines.size(), 2u) << lines.front();
  EXPECT_TRUE(is_error_response(lines[0], -32700, std::nullopt)) << lines[0];
  EXPECT_NE(error_message(lines[0]).find("NUL"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find(R"("id":3,"result")"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace mcpsh::testing
