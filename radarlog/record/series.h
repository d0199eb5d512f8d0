// `radar record --repeat N [--until-fail | --until COMMAND]`: a series of recordings of one
// program, DIR/run-1 ... run-N. Each run is an ordinary `radar record -o
// DIR/run-K` (the same executable), so that a run is recorded exactly as
// one alone would be.
#pragma once

#include <string>
#include <vector>

namespace radar::record {

struct SeriesSettings {
  std::vector<std::string> recorder;  // a run's `radar record [OPTIONS]`, before -o
  std::vector<std::string> command;   // the program and its arguments
  std::string dir;
  bool force = false;  // replace the runs of an earlier series in `dir`
  unsigned long long runs = 1;
  bool until_fail = false;  // stop at the first run whose status differs from the first's
  // Stop at the first run for which this shell command exits non-zero,
  // given the run's standard output on its standard input and its
  // directory in RADAR_RUN (and its status in RADAR_RUN_STATUS). The
  // program's standard output then goes to a file, copied to radar's own
  // after each run. Empty: none.
  std::string until;
};

struct SeriesOutcome {
  std::string error;      // the series could not start or a run was not recorded: why
  int status = 0;         // the last run's exit status
  int first_status = -1;  // the first run's
  unsigned long long recorded = 0;
  int until_status = 0;      // with until: the command's status on the last run
  bool interrupted = false;  // Ctrl-C (or SIGTERM) ended the series after a run
  // With until_fail, when a run's status differed (with until, when the
  // command failed): the run before it (empty for the first) and that run,
  // the only two kept.
  std::string before, after;
};

SeriesOutcome recordSeries(const SeriesSettings& settings);

}  // namespace radar::record
