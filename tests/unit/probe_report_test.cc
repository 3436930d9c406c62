// discovery::parse_probe_report: the probe's report (the probe bash's stdout) read back.
#include <gtest/gtest.h>

#include "discovery/script_probe.h"

namespace mcpsh::discovery {
namespace {

TEST(ProbeReport, CompleteReport) {
  ProbeReport r = parse_probe_report(
      "status 0\n"
      "fn tool_a 3 /srv/tools/a.sh\n"
      "fn tool_b 12 /srv/my tools/lib with spaces.sh\n"
      "var MCP_TOOLS_LIST_FILE /srv/tools/tools.json\n"
      "var MCP_CONFIG_FILE \n"
      "end\n");
  EXPECT_TRUE(r.completed);
  EXPECT_FALSE(r.syntax_error);
  EXPECT_EQ(r.source_status, 0);
  ASSERT_EQ(r.functions.size(), 2u);
  EXPECT_EQ(r.functions[0].name, "tool_a");
  EXPECT_EQ(r.functions[0].line, 3);
  EXPECT_EQ(r.functions[0].file, "/srv/tools/a.sh");
  EXPECT_EQ(r.functions[1].name, "tool_b");
  EXPECT_EQ(r.functions[1].line, 12);
  EXPECT_EQ(r.functions[1].file, "/srv/my tools/lib with spaces.sh");
  EXPECT_EQ(r.tools_list_file, "/srv/tools/tools.json");
  EXPECT_EQ(r.config_file, "");
}

TEST(ProbeReport, SyntaxError) {
  ProbeReport r = parse_probe_report("syntax\n");
  EXPECT_TRUE(r.syntax_error);
  EXPECT_FALSE(r.completed);
  EXPECT_TRUE(r.functions.empty());
}

TEST(ProbeReport, NonZeroSourceStatus) {
  ProbeReport r =
      parse_probe_report("status 3\nvar MCP_TOOLS_LIST_FILE \nvar MCP_CONFIG_FILE \nend\n");
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.source_status, 3);
}

TEST(ProbeReport, AScriptThatExitedWhileSourcedLeavesItIncomplete) {
  EXPECT_FALSE(parse_probe_report("").completed);
  EXPECT_FALSE(parse_probe_report("status 0\nfn tool_a 1 /a.sh\n").completed);
}

TEST(ProbeReport, NoFunctions) {
  ProbeReport r =
      parse_probe_report("status 0\nvar MCP_TOOLS_LIST_FILE \nvar MCP_CONFIG_FILE \nend\n");
  EXPECT_TRUE(r.completed);
  EXPECT_TRUE(r.functions.empty());
  EXPECT_EQ(r.tools_list_file, "");
}

TEST(ProbeReport, ConfigFileWithSpaces) {
  ProbeReport r = parse_probe_report("status 0\nvar MCP_CONFIG_FILE /a b/config.json\nend\n");
  EXPECT_EQ(r.config_file, "/a b/config.json");
}

TEST(ProbeReport, UnknownLinesAreIgnored) {
  ProbeReport r = parse_probe_report("garbage\nstatus 0\nfn\nend\n");
  EXPECT_TRUE(r.completed);
  EXPECT_TRUE(r.functions.empty());
}

TEST(ProbeReport, AFunctionWithoutLineOrFileIsMalformedNotATool) {
  // What a probe whose `declare -F` was replaced by the script would print.
  ProbeReport r = parse_probe_report("status 0\nfn tool_a\nfn tool_b 3\nfn tool_c 4 /c.sh\nend\n");
  EXPECT_TRUE(r.completed);
  ASSERT_EQ(r.functions.size(), 1u);
  EXPECT_EQ(r.functions[0].name, "tool_c");
  EXPECT_EQ(r.malformed, (std::vector<std::string>{"fn tool_a", "fn tool_b 3"}));
}

TEST(ProbeReport, TheStatusLineMeansTheScriptWasSourced) {
  EXPECT_FALSE(parse_probe_report("").sourced);
  EXPECT_FALSE(parse_probe_report("syntax\n").sourced);
  EXPECT_TRUE(parse_probe_report("status 1\n").sourced);
}

}  // namespace
}  // namespace mcpsh::discovery
