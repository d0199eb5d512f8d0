// The variables radar record passes to the interposer, and the name
// patterns of the environment variables whose values logs leave out.
#include <gtest/gtest.h>

#include "log/recorder_env.h"

namespace radar::log {
namespace {

TEST(Redact, PatternsMatchWholeNamesInAnyCase) {
  EXPECT_TRUE(isRedacted("*TOKEN*", "GITHUB_TOKEN=x"));
  EXPECT_TRUE(isRedacted("*TOKEN*", "token=x"));
  EXPECT_TRUE(isRedacted("*_KEY", "AWS_SECRET_ACCESS_KEY=x"));
  EXPECT_FALSE(isRedacted("*_KEY", "KEYBOARD=x"));
  EXPECT_FALSE(isRedacted("*_KEY", "MY_KEYS=x"));
  EXPECT_TRUE(isRedacted("A?C", "ABC=1"));
  EXPECT_FALSE(isRedacted("A?C", "AC=1"));
  EXPECT_TRUE(isRedacted("*a*b*c", "XAYBZC=1"));
  EXPECT_FALSE(isRedacted("*a*b*c", "XAYBZCD=1"));
  EXPECT_TRUE(isRedacted("", "") == false);
  // The name only: a value that looks like a match does not count.
  EXPECT_FALSE(isRedacted("PATH", "PATHS=PATH"));
  EXPECT_TRUE(isRedacted("FOO:BAR:BAZ", "BAR=1"));
  EXPECT_FALSE(isRedacted("FOO::BAZ", "BAR=1"));
  EXPECT_TRUE(isRedacted(kDefaultRedactPatterns, "PGPASSWORD=x"));
  EXPECT_TRUE(isRedacted(kDefaultRedactPatterns, "DB_PASSWORD=x"));
  EXPECT_FALSE(isRedacted(kDefaultRedactPatterns, "HOME=/root"));
  EXPECT_FALSE(isRedacted(kDefaultRedactPatterns, "PATH=/usr/bin"));
  EXPECT_EQ(variableNameLength("NAME=value=more"), 4u);
  EXPECT_EQ(variableNameLength("NOVALUE"), 7u);
}

TEST(Redact, RadarsOwnVariablesAreKnown) {
  EXPECT_TRUE(isRecorderVariable("RADAR_REDACT=*TOKEN*"));
  EXPECT_TRUE(isRecorderVariable("RADAR_DIR"));
  EXPECT_FALSE(isRecorderVariable("RADAR_PORT_IN=3"));
  EXPECT_FALSE(isRecorderVariable("RADAR_DIRECTORY=x"));
}

}  // namespace
}  // namespace radar::log
