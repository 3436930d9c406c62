// Resources end to end: resource_<name> functions listed, read (text, blob, helper blocks,
// templates), failing in every way a function can (JSON-RPC errors, never empty contents),
// cancelled; folders published with --resource-dir, confined to themselves; capabilities
// and cache hints in both eras. The real binary over real pipes, with
// tests/fixtures/resources/catalog.sh.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kMethodNotFound = -32601;
// base64 of tests/fixtures/resources/red-pixel.png.
constexpr const char* kPixelBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC";

std::string catalog() { return fixture("resources/catalog.sh"); }
std::string tools_only() { return fixture("resources/tools_only.sh"); }

std::string str(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject() || !object.HasMember(key) || !object[key].IsString()) return "<none>";
  return object[key].GetString();
}

// The item of `array` whose `key` is `value` (nullptr when none is).
const rapidjson::Value* item_with(const rapidjson::Value& array, const char* key,
                                  const std::string& value) {
  if (!array.IsArray()) return nullptr;
  for (const auto& item : array.GetArray())
    if (str(item, key) == value) return &item;
  return nullptr;
}

std::string read_uri_request(const std::string& id, const std::string& uri) {
  return request(id, "resources/read", R"("uri":")" + uri + "\"");
}

// ---- listing -----------------------------------------------------------------------------

TEST(Resources, ListShowsFixedResourcesWithTheirTags) {
  HostProcess host({catalog()});
  auto d = ask(host, request("1", "resources/list"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& result = d["result"];
  const auto* greeting = item_with(result["resources"], "uri", "test://greeting");
  ASSERT_NE(greeting, nullptr) << compact(d);
  EXPECT_EQ(str(*greeting, "name"), "greeting");
  EXPECT_EQ(str(*greeting, "title"), "Greeting");
  EXPECT_EQ(str(*greeting, "mimeType"), "text/plain");
  EXPECT_EQ(str(*greeting, "description"), "A fixed text resource with every listing tag.");
  ASSERT_TRUE(greeting->HasMember("size") && (*greeting)["size"].IsUint64());
  EXPECT_EQ((*greeting)["size"].GetUint64(), 12u);
  ASSERT_TRUE(greeting->HasMember("annotations"));
  EXPECT_EQ(compact((*greeting)["annotations"]), R"({"audience":["user"],"priority":0.5})");
  EXPECT_NE(item_with(result["resources"], "uri", "test://pixel"), nullptr);
  // Templates are listed by resources/templates/list only.
  EXPECT_EQ(item_with(result["resources"], "name", "profile"), nullptr) << compact(d);
  EXPECT_EQ(str(result, "resultType"), "complete");
  EXPECT_TRUE(result.HasMember("ttlMs") && result["ttlMs"].IsInt64()) << compact(d);
  EXPECT_TRUE(result.HasMember("cacheScope") && result["cacheScope"].IsString()) << compact(d);
}

TEST(Resources, TemplatesListShowsTheTemplates) {
  HostProcess host({catalog()});
  auto d = ask(host, request("1", "resources/templates/list"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& templates = d["result"]["resourceTemplates"];
  const auto* profile = item_with(templates, "uriTemplate", "users://{id}/profile");
  ASSERT_NE(profile, nullptr) << compact(d);
  EXPECT_EQ(str(*profile, "name"), "profile");
  EXPECT_EQ(str(*profile, "mimeType"), "application/json");
  EXPECT_EQ(item_with(templates, "uriTemplate", "test://greeting"), nullptr);
  EXPECT_TRUE(d["result"].HasMember("ttlMs")) << compact(d);
}

// ---- reading -----------------------------------------------------------------------------

TEST(Resources, ReadFixedTextResource) {
  HostProcess host({catalog()});
  auto d = ask(host, read_uri_request("1", "test://greeting"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& contents = d["result"]["contents"];
  ASSERT_TRUE(contents.IsArray() && contents.Size() == 1) << compact(d);
  EXPECT_EQ(str(contents[0], "uri"), "test://greeting");
  EXPECT_EQ(str(contents[0], "mimeType"), "text/plain");
  EXPECT_EQ(str(contents[0], "text"), "hello, world");
  EXPECT_FALSE(contents[0].HasMember("blob"));
  EXPECT_EQ(str(d["result"], "resultType"), "complete");
  EXPECT_TRUE(d["result"].HasMember("ttlMs") && d["result"].HasMember("cacheScope")) << compact(d);
}

TEST(Resources, BinaryOutputIsABlob) {
  HostProcess host({catalog()});
  auto d = ask(host, read_uri_request("1", "test://pixel"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& contents = d["result"]["contents"];
  ASSERT_TRUE(contents.IsArray() && contents.Size() == 1) << compact(d);
  EXPECT_EQ(str(contents[0], "mimeType"), "image/png");
  EXPECT_EQ(str(contents[0], "blob"), kPixelBase64);
  EXPECT_FALSE(contents[0].HasMember("text"));
}

TEST(Resources, HelperBlocksFollowAsFurtherContents) {
  HostProcess host({catalog()});
  auto d = ask(host, read_uri_request("1", "test://bundle"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& contents = d["result"]["contents"];
  ASSERT_TRUE(contents.IsArray() && contents.Size() == 3) << compact(d);
  EXPECT_EQ(str(contents[0], "uri"), "test://bundle");
  EXPECT_EQ(str(contents[0], "text"), "bundle text\n");
  EXPECT_EQ(str(contents[1], "uri"), "test://bundle");
  EXPECT_EQ(str(contents[1], "mimeType"), "image/png");
  EXPECT_EQ(str(contents[1], "blob"), kPixelBase64);
  EXPECT_EQ(str(contents[2], "uri"), "test://inner");
  EXPECT_EQ(str(contents[2], "mimeType"), "text/plain");
  EXPECT_EQ(str(contents[2], "text"), "inner text");
}

TEST(Resources, TemplateVariablesArriveDecoded) {
  HostProcess host({catalog()});
  const std::string uri = "users://j%C3%BCrgen%20m/profile";
  auto d = ask(host, read_uri_request("1", uri), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& contents = d["result"]["contents"];
  ASSERT_TRUE(contents.IsArray() && contents.Size() == 1) << compact(d);
  EXPECT_EQ(str(contents[0], "uri"), uri);
  EXPECT_EQ(str(contents[0], "mimeType"), "application/json");
  auto given = parse_strict(str(contents[0], "text"));
  ASSERT_TRUE(given.IsObject()) << compact(d);
  EXPECT_EQ(str(given, "uri"), uri);
  ASSERT_TRUE(given.HasMember("variables")) << compact(given);
  EXPECT_EQ(compact(given["variables"]), "{\"id\":\"j\xC3\xBCrgen m\"}");
}

TEST(Resources, ReservedAndQueryTemplatesMatchBack) {
  HostProcess host({catalog()});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"files://src/lib/a%20b.c", R"({"path":"src/lib/a b.c"})"},
      {"search://items?q=red%20fox&limit=5", R"({"q":"red fox","limit":"5"})"},
  };
  int id = 1;
  for (const auto& [uri, variables] : cases) {
    SCOPED_TRACE(uri);
    const std::string n = std::to_string(id++);
    auto d = ask(host, read_uri_request(n, uri), n);
    ASSERT_TRUE(d.HasMember("result")) << compact(d);
    auto given = parse_strict(str(d["result"]["contents"][0], "text"));
    ASSERT_TRUE(given.IsObject() && given.HasMember("variables")) << compact(d);
    // Members in any order (rapidjson compares objects by name).
    EXPECT_TRUE(given["variables"] == parse_strict(variables))
        << compact(given["variables"]) << " is not " << variables;
  }
}

TEST(Resources, SideChannelProgressReachesTheReader) {
  HostProcess host({catalog()});
  host.send(
      request("1", "resources/read", R"("uri":"test://progress")", R"("progressToken":"p1")"));
  std::vector<std::string> before;
  auto d = await_response(host, "1", &before);
  ASSERT_TRUE(d) << host.stderr_text();
  EXPECT_EQ(str((*d)["result"]["contents"][0], "text"), "done\n") << compact(*d);
  bool progressed = false;
  for (const auto& line : before) {
    auto n = parse(line);
    if (method_of(n) == "notifications/progress" &&
        compact(n["params"]["progressToken"]) == "\"p1\"")
      progressed = str(n["params"], "message") == "half way";
  }
  EXPECT_TRUE(progressed) << before.size() << " lines before the answer";
}

TEST(Resources, UnknownUriIsInvalidParamsNamingIt) {
  HostProcess host({catalog()});
  host.send(read_uri_request("1", "test://nothing-here"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInvalidParams, "1"));
  auto d = parse_strict(*line);
  ASSERT_TRUE(d["error"].HasMember("data")) << *line;
  EXPECT_EQ(str(d["error"]["data"], "uri"), "test://nothing-here");
}

TEST(Resources, FailingFunctionIsAnInternalErrorWithItsMessage) {
  HostProcess host({catalog()});
  host.send(read_uri_request("1", "test://broken"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("the archive is offline"), std::string::npos) << *line;
}

TEST(Resources, OutputOverTheLimitIsAnError) {
  HostProcess host({"--max-output", "1k", catalog()});
  host.send(read_uri_request("1", "test://big"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("--max-output"), std::string::npos) << *line;
  EXPECT_EQ(line->find("xxxxxxxx"), std::string::npos) << "part of the output was sent";
}

TEST(Resources, TimeoutTagEndsTheReadWithAnErrorNamingIt) {
  HostProcess host({catalog()});
  host.send(read_uri_request("1", "test://slow"));
  auto line = answer_line(host, "1");
  ASSERT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_NE(error_message(line).find("timed out after 1"), std::string::npos) << *line;
}

TEST(Resources, CancelledReadIsStoppedAndNeverAnswered) {
  const std::string tag = unique_tag("read");
  TagCleanup cleanup(tag);
  HostProcess host({catalog()});
  host.send(read_uri_request("7", "sleep://" + tag));
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (processes_matching(tag).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  ASSERT_FALSE(processes_matching(tag).empty()) << host.stderr_text();
  host.send(cancel_line("7"));
  EXPECT_TRUE(wait_no_processes(tag).empty());
  host.close_stdin();
  for (const auto& line : lines_until_eof(host)) EXPECT_NE(id_of(parse(line)), "7") << line;
  EXPECT_EQ(host.wait_exit(), 0);
}

// ---- the legacy era -----------------------------------------------------------------------

class LegacyResources : public ::testing::TestWithParam<const char*> {};

TEST_P(LegacyResources, ResultsCarryNoModernFields) {
  HostProcess host({catalog()});
  auto init = initialize(host, GetParam());
  ASSERT_TRUE(init.HasMember("result")) << compact(init);
  EXPECT_EQ(str(init["result"], "protocolVersion"), GetParam());
  for (const char* method : {"resources/list", "resources/templates/list"}) {
    SCOPED_TRACE(method);
    auto d = ask(host, legacy_request("1", method), "1");
    ASSERT_TRUE(d.HasMember("result")) << compact(d);
    for (const char* modern : {"ttlMs", "cacheScope", "resultType", "_meta"})
      EXPECT_FALSE(d["result"].HasMember(modern)) << modern << ": " << compact(d);
  }
  auto list = ask(host, legacy_request("2", "resources/list"), "2");
  EXPECT_NE(item_with(list["result"]["resources"], "uri", "test://greeting"), nullptr);
  auto d = ask(host, legacy_request("3", "resources/read", R"({"uri":"test://greeting"})"), "3");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  EXPECT_EQ(str(d["result"]["contents"][0], "text"), "hello, world");
  for (const char* modern : {"ttlMs", "cacheScope", "resultType", "_meta"})
    EXPECT_FALSE(d["result"].HasMember(modern)) << modern << ": " << compact(d);
  // Errors are the same in this era.
  host.send(legacy_request("4", "resources/read", R"({"uri":"test://broken"})"));
  auto line = answer_line(host, "4");
  EXPECT_TRUE(is_error_response(line, kInternalError, "4"));
  EXPECT_NE(error_message(line).find("the archive is offline"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Revisions, LegacyResources, ::testing::Values("2025-11-25", "2025-06-18"));

// ---- capabilities -------------------------------------------------------------------------

TEST(ResourceCapabilities, AdvertisedOnlyWhenTheScriptsDefineResources) {
  for (bool defined : {true, false}) {
    SCOPED_TRACE(defined ? "catalog.sh" : "tools_only.sh");
    HostProcess modern({defined ? catalog() : tools_only()});
    auto discover = ask(modern, request("1", "server/discover"), "1");
    ASSERT_TRUE(discover.HasMember("result")) << compact(discover);
    EXPECT_EQ(discover["result"]["capabilities"].HasMember("resources"), defined)
        << compact(discover);
    HostProcess legacy({defined ? catalog() : tools_only()});
    auto init = initialize(legacy);
    ASSERT_TRUE(init.HasMember("result")) << compact(init);
    EXPECT_EQ(init["result"]["capabilities"].HasMember("resources"), defined) << compact(init);
  }
}

TEST(ResourceCapabilities, MethodsOfResourcesNotDefinedAreMethodNotFound) {
  HostProcess modern({tools_only()});
  HostProcess legacy({tools_only()});
  initialize(legacy);
  int id = 1;
  for (const char* method : {"resources/list", "resources/templates/list", "resources/read"}) {
    SCOPED_TRACE(method);
    const std::string params = R"("uri":"test://greeting")";
    const std::string n = std::to_string(id++);
    modern.send(request(n, method, params));
    EXPECT_TRUE(is_error_response(answer_line(modern, n), kMethodNotFound, n));
    legacy.send(legacy_request(n, method, "{" + params + "}"));
    EXPECT_TRUE(is_error_response(answer_line(legacy, n), kMethodNotFound, n));
  }
}

// ---- --resource-dir -----------------------------------------------------------------------

// <scratch>/pub is published; <scratch>/secret.txt and <scratch>/outside/ are not.
class ResourceDir : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    fs::create_directories(scratch_ / "pub/sub");
    fs::create_directories(scratch_ / "outside");
    write(scratch_ / "pub/a.txt", "published text");
    write(scratch_ / "pub/sub/b.md", "# nested");
    write(scratch_ / "pub/.hidden", "private dot file");
    write(scratch_ / "secret.txt", kSecret);
    write(scratch_ / "outside/f.txt", kSecret);
    fs::create_symlink("../secret.txt", scratch_ / "pub/link.txt");
    fs::create_symlink(scratch_ / "outside", scratch_ / "pub/linkdir");
    fs::create_symlink("a.txt", scratch_ / "pub/inner-link.txt");
    write(scratch_ / "pub/with space \xC3\xA9.txt", "spaced");
    root_ = fs::canonical(scratch_ / "pub").string();
    scratch_root_ = fs::canonical(scratch_.path).string();
  }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  std::string prefix() const { return "file://" + root_ + "/"; }

  static constexpr const char* kSecret = "SECRET-OUTSIDE-THE-ROOT";
  ScratchDir scratch_;
  std::string root_, scratch_root_;
};

TEST_F(ResourceDir, ListShowsThePublishedFilesOnly) {
  HostProcess host({"--resource-dir", scratch_ / "pub", tools_only()});
  auto d = ask(host, request("1", "resources/list"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& resources = d["result"]["resources"];
  const auto* a = item_with(resources, "uri", prefix() + "a.txt");
  ASSERT_NE(a, nullptr) << compact(d);
  EXPECT_EQ(str(*a, "name"), "a.txt");
  EXPECT_EQ(str(*a, "mimeType"), "text/plain");
  EXPECT_EQ((*a)["size"].GetUint64(), std::string("published text").size());
  EXPECT_NE(item_with(resources, "uri", prefix() + "sub/b.md"), nullptr) << compact(d);
  const std::string listed = compact(d);
  EXPECT_EQ(listed.find(".hidden"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("pub/link.txt"), std::string::npos) << listed;
  EXPECT_EQ(listed.find("pub/linkdir"), std::string::npos) << listed;
  auto t = ask(host, request("2", "resources/templates/list"), "2");
  EXPECT_NE(item_with(t["result"]["resourceTemplates"], "uriTemplate", prefix() + "{+path}"),
            nullptr)
      << compact(t);
}

TEST_F(ResourceDir, ReadReturnsTheFile) {
  HostProcess host({"--resource-dir", scratch_ / "pub", tools_only()});
  auto d = ask(host, read_uri_request("1", prefix() + "sub/b.md"), "1");
  ASSERT_TRUE(d.HasMember("result")) << compact(d);
  const auto& contents = d["result"]["contents"];
  ASSERT_TRUE(contents.IsArray() && contents.Size() == 1) << compact(d);
  EXPECT_EQ(str(contents[0], "uri"), prefix() + "sub/b.md");
  EXPECT_EQ(str(contents[0], "mimeType"), "text/markdown");
  EXPECT_EQ(str(contents[0], "text"), "# nested");
  EXPECT_TRUE(d["result"].HasMember("ttlMs")) << compact(d);
  // Names are percent-encoded byte by byte; a symlink to a file inside is that file.
  const std::vector<std::pair<std::string, std::string>> more = {
      {"with%20space%20%C3%A9.txt", "spaced"}, {"inner-link.txt", "published text"}};
  auto list = ask(host, request("2", "resources/list"), "2");
  int id = 3;
  for (const auto& [name, text] : more) {
    SCOPED_TRACE(name);
    EXPECT_NE(item_with(list["result"]["resources"], "uri", prefix() + name), nullptr)
        << compact(list);
    const std::string n = std::to_string(id++);
    auto read = ask(host, read_uri_request(n, prefix() + name), n);
    ASSERT_TRUE(read.HasMember("result")) << compact(read);
    EXPECT_EQ(str(read["result"]["contents"][0], "text"), text);
  }
}

TEST_F(ResourceDir, EscapesAreRefused) {
  HostProcess host({"--resource-dir", scratch_ / "pub", tools_only()});
  // As JSON string contents: a backslash is written "\\".
  const std::vector<std::string> escapes = {
      prefix() + "../secret.txt",
      prefix() + "%2e%2e/secret.txt",
      prefix() + "%2E%2E/secret.txt",
      prefix() + "sub/../../secret.txt",
      prefix() + scratch_root_ + "/secret.txt",
      prefix() + "/" + scratch_root_ + "/secret.txt",
      prefix() + "link.txt",
      prefix() + "linkdir/f.txt",
      prefix() + "..%2fsecret.txt",
      prefix() + "sub%2f..%2f..%2fsecret.txt",
      prefix() + "a.txt%00",
      prefix() + "a.txt%00.md",
      prefix() + "..\\\\secret.txt",
      prefix() + "sub\\\\b.md",
      prefix() + ".hidden",
      "file://" + scratch_root_ + "/secret.txt",
  };
  int id = 1;
  for (const auto& uri : escapes) {
    SCOPED_TRACE(uri);
    const std::string n = std::to_string(id++);
    host.send(read_uri_request(n, uri));
    auto line = answer_line(host, n);
    EXPECT_TRUE(is_error_response(line, kInvalidParams, n));
    EXPECT_EQ(line.value_or("").find(kSecret), std::string::npos) << *line;
    EXPECT_EQ(line.value_or("").find("private dot file"), std::string::npos) << *line;
  }
}

TEST_F(ResourceDir, FileOverTheOutputLimitIsAnError) {
  write(scratch_ / "pub/big.txt", std::string(5000, 'x'));
  HostProcess host({"--max-output", "1k", "--resource-dir", scratch_ / "pub", tools_only()});
  host.send(read_uri_request("1", prefix() + "big.txt"));
  auto line = answer_line(host, "1");
  EXPECT_TRUE(is_error_response(line, kInternalError, "1"));
  EXPECT_EQ(line.value_or("").find("xxxxxxxx"), std::string::npos) << *line;
}

TEST_F(ResourceDir, FifoDoesNotBlockTheHost) {
  ASSERT_EQ(::mkfifo((scratch_ / "pub/pipe").c_str(), 0600), 0);
  HostProcess host({"--resource-dir", scratch_ / "pub", tools_only()});
  auto list = ask(host, request("1", "resources/list"), "1");
  ASSERT_TRUE(list.HasMember("result")) << compact(list);
  EXPECT_EQ(compact(list).find("pipe"), std::string::npos) << compact(list);
  host.send(read_uri_request("2", prefix() + "pipe"));
  EXPECT_TRUE(is_error_response(answer_line(host, "2"), kInvalidParams, "2"));
  auto alive = ask(host, request("3", "server/discover"), "3");
  EXPECT_TRUE(alive.HasMember("result")) << compact(alive);
  auto read = ask(host, read_uri_request("4", prefix() + "a.txt"), "4");
  ASSERT_TRUE(read.HasMember("result")) << compact(read);
  EXPECT_EQ(str(read["result"]["contents"][0], "text"), "published text");
}

}  // namespace
}  // namespace mcpsh::testing
