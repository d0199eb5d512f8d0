// What libradar-rerun.so shows a debugger: plain C symbols that the gdb
// extension (gdb/radar.py) reads, sets and breaks on. Nothing else in the
// library is visible.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Where the replay is. "last" is the event replayed most recently, "next"
// the one the program's next recorded call will replay (0 / NULL: none).
// Numbers are the replay's event numbers ("Event N"); locals are the image's own
// counters. Texts are the narrative lines, NUL-terminated.
extern volatile uint64_t radar_replay_last_number;
extern volatile uint64_t radar_replay_last_local;
extern const char* volatile radar_replay_last_text;
extern volatile uint64_t radar_replay_next_number;
extern volatile uint64_t radar_replay_next_local;
extern const char* volatile radar_replay_next_text;
extern volatile uint32_t radar_replay_consumed;  // events replayed so far
extern volatile uint32_t radar_replay_total;     // events in the script

// Stop requests, set by the debugger. The library calls
// radar_replay_stop() just before it replays an event that satisfies one:
//   stop_at_number: the event with this number (or the first after it)
//   stop_at_local:  the event with this local counter in the debugged image
//   stop_on_message: any send or receive
// A request is cleared when it fires.
extern volatile uint64_t radar_replay_stop_at_number;
extern volatile uint64_t radar_replay_stop_at_local;
extern volatile uint32_t radar_replay_stop_on_message;

// What the last stop, divergence or end was about, for people (the same
// text the functions below receive), and how the replay stands: a
// driver::ReplayOutcome (0 running, 1 complete, 2 blocked at the
// recording's end, 3 diverged).
extern const char* volatile radar_replay_message;
extern volatile uint32_t radar_replay_outcome;

// Empty functions to break on. `why` says what happened, for people.
void radar_replay_stop(const char* why);
void radar_replay_diverged(const char* report);  // the program left the recording
void radar_replay_ended(const char* report);     // nothing more was recorded

#ifdef __cplusplus
}
#endif
