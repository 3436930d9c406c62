// Old-core files: the tools file ({"tools":[...]}) and the config file (a discover body).
#include "discovery/oldcore_files.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "temp_dir.h"

namespace mcpsh::discovery {
namespace {

using mcpsh::testing::TempDir;

rapidjson::Document json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

std::string all_errors(const ToolsFile& f) {
  std::string s;
  for (const auto& e : f.errors) s += e + "\n";
  return s;
}

TEST(ToolsFile, KeepsTheFileOrder) {
  TempDir dir;
  auto path = dir.write("tools.json", R"({"tools":[
    {"name":"zeta","inputSchema":{"type":"object"}},
    {"name":"alpha","inputSchema":{"type":"object"}},
    {"name":"mid","inputSchema":{"type":"object"}}]})");
  ToolsFile f = read_tools_file(path);
  EXPECT_TRUE(f.errors.empty()) << all_errors(f);
  ASSERT_EQ(f.tools.size(), 3u);
  EXPECT_EQ(f.tools[0].name, "zeta");
  EXPECT_EQ(f.tools[1].name, "alpha");
  EXPECT_EQ(f.tools[2].name, "mid");
}

TEST(ToolsFile, KeepsTheWholeToolObject) {
  TempDir dir;
  const std::string tool = R"({"name":"book","title":"Book seats","description":"Books.\nReally.",
    "inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":1e3},
      "when":{"type":"string","format":"date-time"},"tags":{"type":"array","items":{"enum":["a",null,2.5]}}},
      "required":["n"],"additionalProperties":false,"$defs":{"x":{"const":"\u00e9"}}},
    "outputSchema":{"type":"object"},"annotations":{"readOnlyHint":false},"_meta":{"k":[1,2]}})";
  auto path = dir.write("tools.json", R"({"tools":[)" + tool + "]}");
  ToolsFile f = read_tools_file(path);
  EXPECT_TRUE(f.errors.empty()) << all_errors(f);
  ASSERT_EQ(f.tools.size(), 1u);
  EXPECT_EQ(json(f.tools[0].definition_json), json(tool)) << f.tools[0].definition_json;
  EXPECT_EQ(f.tools[0].definition_json.find('\n'), std::string::npos) << "compact JSON";
}

TEST(ToolsFile, MissingInputSchemaGetsTheDefault) {
  TempDir dir;
  auto path = dir.write("tools.json", R"({"tools":[{"name":"bare","description":"No schema"}]})");
  ToolsFile f = read_tools_file(path);
  EXPECT_TRUE(f.errors.empty()) << all_errors(f);
  ASSERT_EQ(f.tools.size(), 1u);
  EXPECT_EQ(json(f.tools[0].definition_json),
            json(R"({"name":"bare","description":"No schema","inputSchema":{"type":"object"}})"))
      << f.tools[0].definition_json;
}

TEST(ToolsFile, BadNamesAreRejectedAndTheRestKept) {
  TempDir dir;
  std::string long_name(129, 'a');
  auto path = dir.write("tools.json", R"({"tools":[
    {"name":"good"},
    {"name":"x; rm -rf /"},
    {"name":"../x"},
    {"name":""},
    {"name":"with space"},
    {"name":")" + long_name + R"("},
    {"name":7},
    {"description":"no name"},
    "not an object",
    {"name":"ok.v2-b_c"}]})");
  ToolsFile f = read_tools_file(path);
  ASSERT_EQ(f.tools.size(), 2u) << all_errors(f);
  EXPECT_EQ(f.tools[0].name, "good");
  EXPECT_EQ(f.tools[1].name, "ok.v2-b_c");
  EXPECT_EQ(f.errors.size(), 8u) << all_errors(f);
  EXPECT_NE(all_errors(f).find("tools[1]"), std::string::npos) << all_errors(f);
}

TEST(ToolsFile, NonObjectInputSchemaIsRejected) {
  TempDir dir;
  auto path =
      dir.write("tools.json", R"({"tools":[{"name":"a","inputSchema":true},{"name":"b"}]})");
  ToolsFile f = read_tools_file(path);
  ASSERT_EQ(f.tools.size(), 1u);
  EXPECT_EQ(f.tools[0].name, "b");
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_NE(f.errors[0].find("inputSchema"), std::string::npos) << f.errors[0];
}

TEST(ToolsFile, UnusableFiles) {
  TempDir dir;
  for (const char* content :
       {"", "{", "[]", R"({"tools":{}})", R"({"toolz":[]})", "{\"tools\":[\"\xff\"]}"}) {
    ToolsFile f = read_tools_file(dir.write("tools.json", content));
    EXPECT_TRUE(f.tools.empty()) << content;
    EXPECT_EQ(f.errors.size(), 1u) << content;
  }
  ToolsFile missing = read_tools_file((dir.path() / "nope.json").string());
  EXPECT_TRUE(missing.tools.empty());
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_NE(missing.errors[0].find("nope.json"), std::string::npos) << missing.errors[0];
}

TEST(ToolsFile, EmptyListIsValid) {
  TempDir dir;
  ToolsFile f = read_tools_file(dir.write("tools.json", R"({"tools":[]})"));
  EXPECT_TRUE(f.tools.empty());
  EXPECT_TRUE(f.errors.empty());
}

TEST(ToolName, Rules) {
  EXPECT_TRUE(valid_tool_name("a"));
  EXPECT_TRUE(valid_tool_name("get_user.v2-beta"));
  EXPECT_TRUE(valid_tool_name(std::string(128, 'x')));
  EXPECT_FALSE(valid_tool_name(std::string(129, 'x')));
  EXPECT_FALSE(valid_tool_name(""));
  for (const char* bad : {"a b", "a;b", "a/b", "a$b", "a`b", "\xc3\xa9", "a\nb", "a*"})
    EXPECT_FALSE(valid_tool_name(bad)) << bad;
}

TEST(ConfigFile, ReadsTheDiscoverBody) {
  TempDir dir;
  auto path = dir.write("config.json", R"({"serverInfo":{"name":"cinema","version":"2.1"},
    "instructions":"Use list_films first.","ttlMs":60000,"cacheScope":"public",
    "capabilities":{"tools":{}}})");
  std::string error;
  auto p = read_config_file(path, error);
  ASSERT_TRUE(p.has_value()) << error;
  EXPECT_EQ(json(*p->server_info), json(R"({"name":"cinema","version":"2.1"})"));
  EXPECT_EQ(p->instructions, "Use list_films first.");
  EXPECT_EQ(p->ttl_ms, 60000);
  EXPECT_EQ(p->cache_scope, "public");
  EXPECT_EQ(json(*p->capabilities), json(R"({"tools":{}})"));
}

TEST(ConfigFile, RejectsBadValues) {
  TempDir dir;
  for (const char* content : {R"({"ttlMs":-1})", R"({"ttlMs":1.5})", R"({"ttlMs":"10"})",
                              R"({"cacheScope":"shared"})", "[]", "{"}) {
    std::string error;
    EXPECT_FALSE(read_config_file(dir.write("config.json", content), error).has_value()) << content;
    EXPECT_FALSE(error.empty()) << content;
  }
}

}  // namespace
}  // namespace mcpsh::discovery
