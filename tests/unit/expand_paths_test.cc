// discovery::expand_paths: directories stand for their *.sh scripts, in a stable order.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "discovery/discoverer.h"
#include "temp_dir.h"

namespace mcpsh::discovery {
namespace {

using mcpsh::testing::TempDir;

TEST(ExpandPaths, DirectoryGivesItsShellScriptsSorted) {
  TempDir dir;
  auto b = dir.write("b.sh", "");
  auto a = dir.write("a.sh", "");
  dir.write("notes.txt", "");
  dir.write("c.sh.bak", "");
  dir.write("sub/d.sh", "");  // not recursive
  std::vector<Problem> problems;
  auto scripts = expand_paths({dir.path().string()}, problems);
  EXPECT_EQ(scripts, (std::vector<std::string>{a, b}));
  EXPECT_TRUE(problems.empty());
}

TEST(ExpandPaths, AScriptNamedTwiceIsOneScript) {
  TempDir dir;
  auto a = dir.write("a.sh", "");
  std::vector<Problem> problems;
  auto scripts =
      expand_paths({a, dir.path().string(), (dir.path() / "." / "a.sh").string()}, problems);
  EXPECT_EQ(scripts, (std::vector<std::string>{a}));
}

// A script is a file: a symbolic or a hard link to it names the same script, and the path
// given first is the one kept (the script sees it in BASH_SOURCE).
TEST(ExpandPaths, ALinkToAScriptIsTheSameScript) {
  TempDir dir;
  auto a = dir.write("a.sh", "");
  const auto symbolic = (dir.path() / "b.sh").string();
  const auto hard = (dir.path() / "c.sh").string();
  std::filesystem::create_symlink(a, symbolic);
  std::filesystem::create_hard_link(a, hard);
  std::vector<Problem> problems;
  EXPECT_EQ(expand_paths({dir.path().string()}, problems), (std::vector<std::string>{a}));
  EXPECT_EQ(expand_paths({hard, symbolic, a}, problems), (std::vector<std::string>{hard}));
  EXPECT_TRUE(problems.empty());
}

// A link to something that is not a regular file is not a script.
TEST(ExpandPaths, ALinkToAFolderIsNotAScript) {
  TempDir dir;
  auto a = dir.write("a.sh", "");
  std::filesystem::create_directory_symlink(dir.path() / "sub", dir.path() / "d.sh");
  std::filesystem::create_directories(dir.path() / "sub");
  std::vector<Problem> problems;
  EXPECT_EQ(expand_paths({dir.path().string()}, problems), (std::vector<std::string>{a}));
}

TEST(ExpandPaths, MissingPathIsAnError) {
  TempDir dir;
  std::vector<Problem> problems;
  auto scripts = expand_paths({(dir.path() / "missing.sh").string()}, problems);
  EXPECT_TRUE(scripts.empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].severity, Problem::Severity::kError);
}

TEST(ExpandPaths, EmptyDirectoryIsAWarning) {
  TempDir dir;
  std::vector<Problem> problems;
  EXPECT_TRUE(expand_paths({dir.path().string()}, problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].severity, Problem::Severity::kWarning);
}

}  // namespace
}  // namespace mcpsh::discovery
