// Content beyond text: mcp_image, mcp_audio, mcp_resource and mcp_resource_link add blocks
// to the result after the tool's text, in call order; the bytes round-trip exactly; the
// payloads share the output limit with the text; annotations are checked; a legacy
// revision gets only the block types it defines.
#include <gtest/gtest.h>

#include <fstream>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

std::string content_script() { return fixture("content.sh"); }

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Every byte value, repeated to `size`: what a text path would mangle.
std::string binary_bytes(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 7 + i / 256) & 0xFF);
  return s;
}

std::string decode64(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : in) {
    int v = value(c);
    if (v < 0) break;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

// `calls` as one line: the tests write it over several.
std::string one_line(std::string calls) {
  std::erase(calls, '\n');
  return calls;
}

// A "blocks" call: `calls` is the JSON array of {"args":[...], "stdin":...}.
std::string blocks_call(const std::string& id, const std::string& calls,
                        const std::string& text = "") {
  std::string args = R"({"calls":)" + one_line(calls);
  if (!text.empty()) args += R"(,"text":)" + quoted(text);
  return call_request(id, "blocks", args + "}");
}

rapidjson::Document call(HostProcess& host, const std::string& line, const std::string& id) {
  host.send(line);
  auto response = await_response(host, id);
  EXPECT_TRUE(response) << host.stderr_text();
  if (!response) return rapidjson::Document();
  EXPECT_TRUE((*response).HasMember("result")) << compact(*response);
  return std::move(*response);
}

const rapidjson::Value& content_of(const rapidjson::Document& d) { return d["result"]["content"]; }

std::string type_of(const rapidjson::Value& block) { return block["type"].GetString(); }

std::string str(const rapidjson::Value& v, const char* name) {
  return v.HasMember(name) ? std::string(v[name].GetString(), v[name].GetStringLength()) : "<none>";
}

TEST(ContentBlocks, ImageAndAudioRoundTripExactly) {
  ScratchDir dir;
  const std::string image = binary_bytes(40000), audio = binary_bytes(30001);
  write_file(dir / "pic.png", image);
  write_file(dir / "clip.wav", audio);
  HostProcess host({content_script()});
  auto d =
      call(host,
           blocks_call("1", R"([{"args":["mcp_image",")" + (dir / "pic.png") +
                                R"("]},{"args":["mcp_audio",")" + (dir / "clip.wav") + R"("]}])"),
           "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 2u) << compact(d);
  EXPECT_EQ(type_of(c[0]), "image");
  EXPECT_EQ(str(c[0], "mimeType"), "image/png");
  EXPECT_TRUE(decode64(str(c[0], "data")) == image) << "image bytes differ";
  EXPECT_EQ(type_of(c[1]), "audio");
  EXPECT_EQ(str(c[1], "mimeType"), "audio/wav");
  EXPECT_TRUE(decode64(str(c[1], "data")) == audio) << "audio bytes differ";
  EXPECT_FALSE(is_error_result(d));
}

TEST(ContentBlocks, AGivenMimeTypeWinsOverTheExtension) {
  ScratchDir dir;
  write_file(dir / "x.png", "abc");
  HostProcess host({content_script()});
  auto d = call(host,
                blocks_call("1", R"([{"args":["mcp_image",")" + (dir / "x.png") +
                                     R"(","image/x-special"]}])"),
                "1");
  ASSERT_EQ(content_of(d).Size(), 1u) << compact(d);
  EXPECT_EQ(str(content_of(d)[0], "mimeType"), "image/x-special");
}

TEST(ContentBlocks, ResourcesAreTextWhenTextualAndBlobOtherwise) {
  ScratchDir dir;
  const std::string text = "line one\n\tcaf\xc3\xa9\nlast";
  const std::string bytes = binary_bytes(5000);
  write_file(dir / "notes.txt", text);
  write_file(dir / "data.bin", bytes);
  write_file(dir / "bad.txt", "ok \xff\xfe not utf-8");
  HostProcess host({content_script()});
  auto d = call(host,
                blocks_call("1", R"([
      {"args":["mcp_resource","file:///notes.txt","",")" +
                                     (dir / "notes.txt") + R"("]},
      {"args":["mcp_resource","file:///data.bin","application/octet-stream",")" +
                                     (dir / "data.bin") + R"("]},
      {"args":["mcp_resource","file:///bad.txt","text/plain",")" +
                                     (dir / "bad.txt") + R"("]},
      {"args":["mcp_resource","mem://piped","application/json"],"stdin":"{\"a\":1}"}])"),
                "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 4u) << compact(d);
  for (const auto& block : c.GetArray()) EXPECT_EQ(type_of(block), "resource");
  EXPECT_EQ(str(c[0]["resource"], "uri"), "file:///notes.txt");
  EXPECT_EQ(str(c[0]["resource"], "mimeType"), "text/plain") << "derived from the file name";
  EXPECT_EQ(str(c[0]["resource"], "text"), text);
  EXPECT_FALSE(c[0]["resource"].HasMember("blob"));
  EXPECT_TRUE(decode64(str(c[1]["resource"], "blob")) == bytes);
  EXPECT_FALSE(c[1]["resource"].HasMember("text"));
  EXPECT_EQ(decode64(str(c[2]["resource"], "blob")), "ok \xff\xfe not utf-8")
      << "text/plain that is not UTF-8 is sent as a blob, unchanged";
  EXPECT_EQ(str(c[3]["resource"], "text"), R"({"a":1})");
  EXPECT_EQ(str(c[3]["resource"], "uri"), "mem://piped");
}

TEST(ContentBlocks, ResourceLinksCarryTheirFields) {
  HostProcess host({content_script()});
  auto d = call(host, blocks_call("1", R"([
      {"args":["mcp_resource_link","file:///r/report.csv","Report","","The\tmonthly\nreport"]},
      {"args":["mcp_resource_link","https://example.com/a"]}])"),
                "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 2u) << compact(d);
  EXPECT_EQ(type_of(c[0]), "resource_link");
  EXPECT_EQ(str(c[0], "uri"), "file:///r/report.csv");
  EXPECT_EQ(str(c[0], "name"), "Report");
  EXPECT_EQ(str(c[0], "mimeType"), "text/csv");
  EXPECT_EQ(str(c[0], "description"), "The monthly report");
  EXPECT_EQ(str(c[1], "name"), "https://example.com/a") << "the name defaults to the URI";
  EXPECT_FALSE(c[1].HasMember("mimeType"));
  EXPECT_FALSE(c[1].HasMember("description"));
}

TEST(ContentBlocks, AnnotationsAreSentAndBadOnesLeftOutWithALogLine) {
  ScratchDir dir;
  write_file(dir / "a.png", "png");
  const std::string png = dir / "a.png";
  HostProcess host({content_script()});
  auto d = call(host,
                blocks_call("1", R"([
      {"args":["mcp_image","--audience","user,assistant","--priority","0.8",
               "--last-modified","2025-01-12T15:00:58Z",")" +
                                     png + R"("]},
      {"args":["mcp_image","--priority","2",")" +
                                     png + R"("]},
      {"args":["mcp_resource_link","--audience","robot","file:///x"]}])"),
                "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 3u) << compact(d);
  EXPECT_EQ(
      compact(c[0]["annotations"]),
      R"({"audience":["user","assistant"],"priority":0.8,"lastModified":"2025-01-12T15:00:58Z"})");
  EXPECT_FALSE(c[1].HasMember("annotations")) << compact(c[1]);
  EXPECT_FALSE(c[2].HasMember("annotations")) << compact(c[2]);
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(), 0);
  const std::string log = host.stderr_text();
  EXPECT_NE(log.find("mcp_image: annotations dropped: priority must be a number from 0 to 1"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("mcp_resource_link: annotations dropped: audience must be user or assistant"),
            std::string::npos)
      << log;
}

TEST(ContentBlocks, TextComesFirstThenBlocksInCallOrder) {
  ScratchDir dir;
  write_file(dir / "a.png", "1");
  write_file(dir / "b.wav", "2");
  const std::string calls = R"([{"args":["mcp_resource_link","file:///first"]},
      {"args":["mcp_image",")" +
                            (dir / "a.png") + R"("]},
      {"args":["mcp_resource","mem://third","text/plain"],"stdin":"3"},
      {"args":["mcp_audio",")" +
                            (dir / "b.wav") + R"("]}])";
  HostProcess host({content_script()});
  auto with_text = call(host, blocks_call("1", calls, "the text"), "1");
  std::vector<std::string> types;
  for (const auto& b : content_of(with_text).GetArray()) types.push_back(type_of(b));
  EXPECT_EQ(types,
            (std::vector<std::string>{"text", "resource_link", "image", "resource", "audio"}));
  EXPECT_EQ(str(content_of(with_text)[0], "text"), "the text");

  auto without = call(host, blocks_call("2", calls), "2");
  types.clear();
  for (const auto& b : content_of(without).GetArray()) types.push_back(type_of(b));
  EXPECT_EQ(types, (std::vector<std::string>{"resource_link", "image", "resource", "audio"}))
      << "an empty stdout gives no empty text block";
}

TEST(ContentBlocks, BlocksShareTheOutputLimitWithTheText) {
  ScratchDir dir;
  write_file(dir / "small.png", binary_bytes(600));
  write_file(dir / "big.png", binary_bytes(3000));
  HostProcess host({"--max-output", "1000", content_script()});
  auto d = call(host,
                blocks_call("1",
                            R"([{"args":["mcp_image",")" + (dir / "big.png") +
                                R"("]},{"args":["mcp_image",")" + (dir / "small.png") +
                                R"("]},{"args":["mcp_image",")" + (dir / "small.png") + R"("]}])",
                            "some text"),
                "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 2u) << compact(d);
  EXPECT_FALSE(is_error_result(d)) << "a dropped block is reported like truncated stdout";
  EXPECT_EQ(type_of(c[1]), "image");
  EXPECT_EQ(decode64(str(c[1], "data")).size(), 600u);
  const std::string text = str(c[0], "text");
  EXPECT_EQ(text.rfind("some text", 0), 0u) << text;
  EXPECT_NE(text.find("[image block of 2.9 KiB dropped: over the output limit of 1000 bytes]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[image block of 600 bytes dropped"), std::string::npos)
      << "the second small image passes the limit with the text and the first: " << text;
}

TEST(ContentBlocks, ABlockFarOverTheLimitIsNotHeldAndIsReported) {
  ScratchDir dir;
  write_file(dir / "huge.png", binary_bytes(1 << 20));
  HostProcess host({"--max-output", "1000", content_script()});
  auto d = call(
      host, blocks_call("1", R"([{"args":["mcp_image",")" + (dir / "huge.png") + R"("]}])"), "1");
  const auto& c = content_of(d);
  ASSERT_EQ(c.Size(), 1u) << compact(d);
  const std::string text = str(c[0], "text");
  EXPECT_EQ(text.rfind("[1 content block of ", 0), 0u) << text;
  EXPECT_NE(text.find(" or more dropped: over the output limit of 1000 bytes]"), std::string::npos)
      << text;
}

TEST(ContentBlocks, AHelperMistakeIsReportedOnStderr) {
  ScratchDir dir;
  write_file(dir / "noext", "x");
  HostProcess host({content_script()});
  auto d = call(host,
                blocks_call("1", R"([{"args":["mcp_audio",")" + (dir / "missing.wav") +
                                     R"("]},{"args":["mcp_image","--priority"]},
      {"args":["mcp_image","--colour","red","a.png"]}])"),
                "1");
  EXPECT_EQ(str(content_of(d)[0], "text"), "mcp_audio failed\nmcp_image failed\nmcp_image failed");
  auto strict = call(
      host, call_request("2", "strict_image", R"({"file":")" + (dir / "nope.png") + "\"}"), "2");
  EXPECT_TRUE(is_error_result(strict));
  EXPECT_NE(result_text(strict).find("mcp_image: cannot read '" + (dir / "nope.png") + "'"),
            std::string::npos)
      << result_text(strict);
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(), 0);
  const std::string log = host.stderr_text();
  EXPECT_NE(log.find("mcp_audio: cannot read '" + (dir / "missing.wav") + "'"), std::string::npos)
      << log;
  EXPECT_NE(log.find("mcp_image: --priority needs a value"), std::string::npos) << log;
  EXPECT_NE(log.find("mcp_image: unknown option --colour"), std::string::npos) << log;
}

TEST(ContentBlocks, ConformanceShapes) {
  HostProcess host({content_script()});
  auto image = call(host, call_request("1", "test_image_content"), "1");
  ASSERT_EQ(content_of(image).Size(), 1u) << compact(image);
  EXPECT_EQ(type_of(content_of(image)[0]), "image");
  EXPECT_EQ(decode64(str(content_of(image)[0], "data")).substr(1, 3), "PNG");
  auto mixed = call(host, call_request("2", "test_mixed_content"), "2");
  std::vector<std::string> types;
  for (const auto& b : content_of(mixed).GetArray()) types.push_back(type_of(b));
  EXPECT_EQ(types, (std::vector<std::string>{"text", "image", "resource"}));
}

// ---- legacy revisions --------------------------------------------------------------------

// A legacy session at `version` and one blocks call in it.
rapidjson::Document legacy_call(const std::string& version, const std::string& calls) {
  HostProcess host({content_script()});
  host.send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")" +
            version + R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  auto init = await_response(host, "0");
  EXPECT_TRUE(init);
  host.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  host.send(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blocks","arguments":{"calls":)" +
      one_line(calls) + "}}}");
  auto d = await_response(host, "1");
  EXPECT_TRUE(d) << host.stderr_text();
  return d ? std::move(*d) : rapidjson::Document();
}

TEST(ContentBlocks, LegacyRevisionsGetOnlyTheBlockTypesTheyDefine) {
  ScratchDir dir;
  write_file(dir / "c.wav", "sound");
  const std::string calls = R"([{"args":["mcp_audio",")" + (dir / "c.wav") + R"("]},
      {"args":["mcp_resource_link","--last-modified","2025-01-01T00:00:00Z","file:///r.txt","R","","about r"]},
      {"args":["mcp_resource","--priority","0.5","--last-modified","2025-01-01T00:00:00Z","mem://x","text/plain"],"stdin":"x"}])";

  auto oldest = legacy_call("2024-11-05", calls);
  const auto& c = oldest["result"]["content"];
  ASSERT_EQ(c.Size(), 3u) << compact(oldest);
  EXPECT_EQ(type_of(c[0]), "text");
  EXPECT_EQ(str(c[0], "text"),
            "[audio (audio/wav) left out: protocol revision 2024-11-05 has no audio content]");
  EXPECT_EQ(type_of(c[1]), "text");
  EXPECT_EQ(str(c[1], "text"), "Resource: R <file:///r.txt> (text/plain): about r");
  EXPECT_EQ(type_of(c[2]), "resource");
  EXPECT_EQ(compact(c[2]["annotations"]), R"({"priority":0.5})")
      << "no lastModified before 2025-06-18";

  auto audio_era = legacy_call("2025-03-26", calls);
  const auto& a = audio_era["result"]["content"];
  ASSERT_EQ(a.Size(), 3u) << compact(audio_era);
  EXPECT_EQ(type_of(a[0]), "audio");
  EXPECT_EQ(type_of(a[1]), "text");

  auto current = legacy_call("2025-11-25", calls);
  const auto& n = current["result"]["content"];
  ASSERT_EQ(n.Size(), 3u) << compact(current);
  EXPECT_EQ(type_of(n[1]), "resource_link");
  EXPECT_EQ(str(n[1]["annotations"], "lastModified"), "2025-01-01T00:00:00Z");
}

}  // namespace
}  // namespace mcpsh::testing
