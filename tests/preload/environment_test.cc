// The recorder's environment handling (radarlog/preload/environment.cc),
// called directly: no LD_PRELOAD, no recording.
#include "preload/environment.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/recorder_env.h"
#include "log/stop_at.h"
#include "preload/state.h"

namespace radar::preload {
namespace {

// An envp array over strings the test keeps.
struct Env {
  explicit Env(std::vector<std::string> vars) : strings(std::move(vars)) {
    for (auto& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  char* const* envp() { return pointers.data(); }
  std::vector<std::string> strings;
  std::vector<char*> pointers;
};

std::vector<std::string> listOf(char* const* envp) {
  std::vector<std::string> out;
  for (char* const* e = envp; *e; ++e) out.push_back(*e);
  return out;
}

constexpr const char* kSelf = "/opt/radar/lib/radar/libradar-preload.so";

Config configFrom(std::vector<std::string> vars) {
  Env env(std::move(vars));
  Config c;
  parseConfig(env.envp(), kSelf, &c);
  return c;
}

TEST(RecorderEnvironment, ConfigComesFromRadarsVariablesAndIsOffWithoutADirectory) {
  EXPECT_FALSE(configFrom({"HOME=/root", "RADAR_PAYLOAD_LIMIT=10"}).enabled);
  const Config c =
      configFrom({"HOME=/root", "RADAR_DIR=/tmp/rec", "RADAR_RECORDING_ID=000102030405060708090a0b0c0d0e0f",
                  "RADAR_PAYLOAD_LIMIT=4096", "RADAR_TAIL=65536", "RADAR_NONDET=1", "RADAR_EXTERNAL=2049:77,2049:78",
                  "RADAR_HOST=box", "RADAR_LINK=exec:ab:3:1"});
  ASSERT_TRUE(c.enabled);
  EXPECT_STREQ(c.dir, "/tmp/rec");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(c.recording_id[i], i);
  EXPECT_TRUE(c.has_payload_limit);
  EXPECT_EQ(c.payload_limit, 4096u);
  EXPECT_EQ(c.tail_capacity, 65536u);
  EXPECT_TRUE(c.nondet);
  ASSERT_EQ(c.external_count, 2);
  EXPECT_EQ(c.external[1].dev, 2049u);
  EXPECT_EQ(c.external[1].ino, 78u);
  EXPECT_STREQ(c.host, "box");
  EXPECT_STREQ(c.self_path, kSelf);
  // Kept to be put back at exec: radar's variables but the link, which
  // describes this image only.
  const std::vector<std::string> vars(c.vars, c.vars + c.var_count);
  EXPECT_EQ(vars, (std::vector<std::string>{"RADAR_DIR=/tmp/rec", "RADAR_RECORDING_ID=000102030405060708090a0b0c0d0e0f",
                                            "RADAR_PAYLOAD_LIMIT=4096", "RADAR_TAIL=65536", "RADAR_NONDET=1",
                                            "RADAR_EXTERNAL=2049:77,2049:78", "RADAR_HOST=box"}));
}

// Sends refer to the receives whose bytes they pass on, unless told not to
// (--copies) or where the bytes referred to may be gone or cut: a flight
// recording, a payload limit, a stop condition that looks at sends' bytes,
// a dormant recording (ends open before radar attach are not matched).
TEST(RecorderEnvironment, BytesAreKeptOnceUnlessCopiesAreAskedOrNeeded) {
  EXPECT_TRUE(configFrom({"RADAR_DIR=/d"}).same_bytes);
  EXPECT_FALSE(configFrom({"RADAR_DIR=/d", "RADAR_COPIES=1"}).same_bytes);
  EXPECT_FALSE(configFrom({"RADAR_DIR=/d", "RADAR_FLIGHT=1"}).same_bytes);
  EXPECT_FALSE(configFrom({"RADAR_DIR=/d", "RADAR_PAYLOAD_LIMIT=0"}).same_bytes);
  EXPECT_FALSE(configFrom({"RADAR_DIR=/d", "RADAR_DORMANT=1"}).same_bytes);
  EXPECT_FALSE(configFrom({"RADAR_DIR=/d", std::string(log::kStopAtVariable) + "=c:hello"}).same_bytes);
}

TEST(RecorderEnvironment, AnOverlongRedactListFallsBackToTheDefaultsRatherThanHalfAPattern) {
  EXPECT_STREQ(configFrom({"RADAR_DIR=/d", "RADAR_REDACT=*TOKEN*"}).redact, "*TOKEN*");
  const Config c = configFrom({"RADAR_DIR=/d", "RADAR_REDACT=" + std::string(5000, 'A')});
  EXPECT_STREQ(c.redact, log::kDefaultRedactPatterns);
}

TEST(RecorderEnvironment, TheLinkSaysHowAnImageBeganAndSurvivesTheRoundTrip) {
  Env none({"HOME=/root"});
  const Link shell = parseLink(none.envp());
  EXPECT_EQ(shell.origin, log::Origin::ShellSpawned);
  EXPECT_EQ(shell.parent_log, 0u);

  char buf[128];
  formatLink(buf, sizeof(buf), "exec", 0xfeedbeef12345678ull, 1234567, 3);
  EXPECT_STREQ(buf, "RADAR_LINK=exec:feedbeef12345678:1234567:3");
  Env linked({"A=1", buf});
  const Link l = parseLink(linked.envp());
  EXPECT_EQ(l.origin, log::Origin::Execed);
  EXPECT_EQ(l.parent_log, 0xfeedbeef12345678ull);
  EXPECT_EQ(l.counter, 1234567u);
  EXPECT_EQ(l.generation, 3u);
  for (const auto& [word, origin] : std::vector<std::pair<std::string, log::Origin>>{
           {"root", log::Origin::Root}, {"vfork", log::Origin::Vforked}, {"spawn", log::Origin::Spawned}}) {
    Env e({"RADAR_LINK=" + word + ":1:2:0"});
    EXPECT_EQ(parseLink(e.envp()).origin, origin) << word;
  }
  // Junk is no link at all, not a crash: an unknown origin is a shell's.
  Env junk({"RADAR_LINK=what:zz"});
  EXPECT_EQ(parseLink(junk.envp()).origin, log::Origin::ShellSpawned);
}

EnvScratch scratch;  // the strings the environments below are built with

std::vector<std::string> execEnvironment(const Config& c, std::vector<std::string> vars, const char* link) {
  Env env(std::move(vars));
  std::vector<char*> out(env.strings.size() + Config::kMaxVars + 8);
  EXPECT_TRUE(buildExecEnvironment(c, env.envp(), link, out.data(), out.size(), &scratch));
  return listOf(out.data());
}

TEST(RecorderEnvironment, AnExecGetsRadarsVariablesBackAndTheLinkLast) {
  const Config c = configFrom({"RADAR_DIR=/tmp/rec", "RADAR_TAIL=8", "RADAR_LINK=root:0:0:0"});
  // A program that scrubbed its environment (sudo, env -i): ours come back.
  EXPECT_EQ(execEnvironment(c, {"PATH=/bin"}, "RADAR_LINK=exec:ab:5:1"),
            (std::vector<std::string>{"PATH=/bin", std::string("LD_PRELOAD=") + kSelf, "RADAR_DIR=/tmp/rec",
                                      "RADAR_TAIL=8", "RADAR_LINK=exec:ab:5:1"}));
  // One that kept them: nothing twice, and the old link replaced.
  EXPECT_EQ(
      execEnvironment(
          c, {"RADAR_DIR=/tmp/rec", std::string("LD_PRELOAD=") + kSelf, "RADAR_LINK=root:0:0:0", "RADAR_TAIL=8", "X=y"},
          "RADAR_LINK=exec:ab:6:1"),
      (std::vector<std::string>{"RADAR_DIR=/tmp/rec", std::string("LD_PRELOAD=") + kSelf, "RADAR_TAIL=8", "X=y",
                                "RADAR_LINK=exec:ab:6:1"}));
}

TEST(RecorderEnvironment, AProgramsOwnPreloadIsKeptAfterOursButSanitizerRuntimesStayFirst) {
  const Config c = configFrom({"RADAR_DIR=/tmp/rec"});
  const auto env =
      execEnvironment(c, {"LD_PRELOAD=/usr/lib/libjemalloc.so:/usr/lib/x86_64-linux-gnu/libasan.so.8"}, nullptr);
  ASSERT_FALSE(env.empty());
  EXPECT_EQ(env[0],
            std::string("LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libasan.so.8:") + kSelf + ":/usr/lib/libjemalloc.so");
}

TEST(RecorderEnvironment, TooManyVariablesToAddIsSaidNotOverrun) {
  const Config c = configFrom({"RADAR_DIR=/tmp/rec"});
  Env env({"A=1", "B=2", "C=3"});
  char* out[4];
  EXPECT_FALSE(buildExecEnvironment(c, env.envp(), "RADAR_LINK=exec:1:1:1", out, 4, &scratch));
}

TEST(RecorderEnvironment, TheBareEnvironmentIsTheProgramsWithoutRadar) {
  const Config c = configFrom({"RADAR_DIR=/tmp/rec"});
  Env env({"PATH=/bin", "RADAR_DIR=/tmp/rec", "RADAR_LINK=exec:1:2:3",
           std::string("LD_PRELOAD=/usr/lib/libjemalloc.so:") + kSelf + ":/usr/lib/libfoo.so",
           std::string("ASAN_OPTIONS=detect_leaks=0:") + log::kAsanLinkOrder});
  std::vector<char*> out(16);
  ASSERT_TRUE(buildBareEnvironment(c, env.envp(), out.data(), out.size(), &scratch));
  EXPECT_EQ(listOf(out.data()),
            (std::vector<std::string>{"PATH=/bin", "LD_PRELOAD=/usr/lib/libjemalloc.so:/usr/lib/libfoo.so",
                                      "ASAN_OPTIONS=detect_leaks=0"}));
  // Only our library preloaded, and only radar's ASAN option: both go.
  Env ours({std::string("LD_PRELOAD=") + kSelf, std::string("ASAN_OPTIONS=") + log::kAsanLinkOrder, "X=1"});
  ASSERT_TRUE(buildBareEnvironment(c, ours.envp(), out.data(), out.size(), &scratch));
  EXPECT_EQ(listOf(out.data()), (std::vector<std::string>{"X=1"}));
}

}  // namespace
}  // namespace radar::preload
