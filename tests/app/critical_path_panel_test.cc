// The window's critical-path panel on a real recording of a lock wait
// (radar record --sync of tests/threads/programs/lock_wait.c): the row of
// the hand-over names the thread that released the lock and the lock, as
// `radar critical-path` does.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "analysis/critical_path.h"
#include "analysis/narrative.h"
#include "app/models.h"
#include "temp_dirs.h"
#include "trace/merge.h"

namespace radar::app {
namespace {

TEST(CriticalPathPanel, AWaitForALockNamesTheThreadThatReleasedIt) {
  const std::string dir = testing::TempDirs::make("radar-panel") + "/rec";
  const std::string command =
      std::string(RADAR_BIN) + " record --sync -o " + dir + " -- " + LOCK_WAIT + " 1 >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::string error;
  const auto t = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  ASSERT_TRUE(t) << error;
  const analysis::Narrator narrator(*t);
  // The mutex the second thread found held: its lock, which waited.
  uint32_t wait = trace::kNone;
  for (uint32_t i = 0; i < t->events.size() && wait == trace::kNone; ++i)
    if (t->events[i].eventKind() == log::Kind::MutexLock && t->events[i].durationNs() >= 50'000'000) wait = i;
  ASSERT_NE(wait, trace::kNone) << "no mutex lock that waited 50 ms";
  analysis::CriticalPath path;
  ASSERT_TRUE(analysis::criticalPath(*t, trace::kNone, wait, &path, &error)) << error;
  CriticalPathModel model(*t, narrator);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setPath(path);
  int handover = -1;
  for (int row = 0; row < model.rowCount(); ++row)
    if (path.segments[row].woken_by != trace::kNone) handover = row;
  ASSERT_GE(handover, 0) << "no segment woken by a release";
  const std::string kind = model.data(model.index(handover, CriticalPathModel::Kind)).toString().toStdString();
  const std::string where = model.data(model.index(handover, CriticalPathModel::Where)).toString().toStdString();
  EXPECT_EQ(kind, "transit");
  EXPECT_TRUE(std::regex_match(
      where, std::regex(R"(lock_wait\[\d+\] \(thread 2\), woken by lock_wait\[\d+\] \(mutex 0x[0-9a-f]+\))")))
      << where;
  EXPECT_EQ(where, analysis::segmentOwner(*t, path.segments[handover]));
}

}  // namespace
}  // namespace radar::app
