// The structure-aware fuzzer's input, a FuzzRecording (fuzz_recording.proto),
// to and from real recordings. Shared by the fuzzer and the tool that makes
// its corpus from recordings of real programs.
#pragma once

#include <string>

#include "fuzz_recording.pb.h"

namespace radar::fuzz {

// Writes `recording` into the directory `dir` as log files (named 0.rlog,
// 1.rlog ...) made by LogWriter, each log's events in one zstd frame after
// its header, and recording.txt when it has one. Returns false when nothing
// could be written.
bool writeRecording(const FuzzRecording& recording, const std::string& dir);

// Reads the logs of a recording directory (and its recording.txt) into
// `out`: every counted event and channel definition, with its counter,
// thread, times and offset spelled out. False with *error when a log cannot
// be read.
bool readRecording(const std::string& dir, FuzzRecording* out, std::string* error);

}  // namespace radar::fuzz
