// Turns a recording directory into an input of the structure-aware
// recording fuzzer (tests/fuzz/recording_corpus/ holds ones made from
// recordings of the sample programs).
//   fuzz_make_recording_seed RECORDING_DIR OUTPUT_FILE
#include <cstdio>
#include <fstream>

#include "fuzz_recording.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RECORDING_DIR OUTPUT_FILE\n", argv[0]);
    return 2;
  }
  radar::fuzz::FuzzRecording rec;
  std::string error;
  if (!radar::fuzz::readRecording(argv[1], &rec, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  // Nothing of the machine it was recorded on beyond what the story needs.
  for (auto& l : *rec.mutable_logs()) {
    l.mutable_header()->clear_environment();
    l.mutable_header()->add_environment("PATH=/usr/local/bin:/usr/bin:/bin");
    l.mutable_header()->set_host_name("host");
  }
  rec.mutable_recording()->set_host_name("host");
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << rec.SerializeAsString();
  return out ? 0 : 1;
}
